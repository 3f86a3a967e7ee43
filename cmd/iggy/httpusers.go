package main

import (
	"fmt"
	"net/http"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

// userOf and userDetailsOf read user records back into the wire types.
func userOf(u rest.User) wire.UserInfo {
	status := wire.UserStatusActive
	if u.Status == "inactive" {
		status = wire.UserStatusInactive
	}
	return wire.UserInfo{ID: u.ID, CreatedAt: u.CreatedAt, Status: status, Username: u.Username}
}

func userDetailsOf(u rest.UserDetails) wire.UserDetails {
	return wire.UserDetails{UserInfo: userOf(u.User), Permissions: u.Permissions}
}

func userPath(u wire.Identifier) string { return "/users/" + pathID(u) }

func (h *httpAPI) CreateUser(username, password string, status wire.UserStatus, perms *wire.Permissions) (wire.UserDetails, error) {
	var u rest.UserDetails
	body := map[string]any{"username": username, "password": password, "status": wire.UserStatusWord(status), "permissions": perms}
	_, err := h.do(http.MethodPost, "/users", nil, body, &u)
	return userDetailsOf(u), err
}

func (h *httpAPI) GetUsers() ([]wire.UserInfo, error) {
	var us []rest.User
	_, err := h.do(http.MethodGet, "/users", nil, nil, &us)
	out := make([]wire.UserInfo, len(us))
	for i, u := range us {
		out[i] = userOf(u)
	}
	return out, err
}

func (h *httpAPI) GetUser(user wire.Identifier) (wire.UserDetails, bool, error) {
	var u rest.UserDetails
	found, err := h.do(http.MethodGet, userPath(user), nil, nil, &u)
	return userDetailsOf(u), found, err
}

func (h *httpAPI) DeleteUser(user wire.Identifier) error {
	_, err := h.do(http.MethodDelete, userPath(user), nil, nil, nil)
	return err
}

func (h *httpAPI) UpdatePermissions(user wire.Identifier, perms *wire.Permissions) error {
	_, err := h.do(http.MethodPut, userPath(user)+"/permissions", nil, map[string]any{"permissions": perms}, nil)
	return err
}

func (h *httpAPI) ChangePassword(user wire.Identifier, current, next string) error {
	_, err := h.do(http.MethodPut, userPath(user)+"/password", nil, map[string]string{"current_password": current, "new_password": next}, nil)
	return err
}

func (h *httpAPI) CreatePersonalAccessToken(name string, expiry uint64) (string, error) {
	var reply struct {
		Token string `json:"token"`
	}
	_, err := h.do(http.MethodPost, "/personal-access-tokens", nil, map[string]any{"name": name, "expiry": expiry}, &reply)
	return reply.Token, err
}

func (h *httpAPI) GetPersonalAccessTokens() ([]wire.PATInfo, error) {
	var ps []struct {
		Name     string  `json:"name"`
		ExpiryAt *uint64 `json:"expiry_at"`
	}
	_, err := h.do(http.MethodGet, "/personal-access-tokens", nil, nil, &ps)
	out := make([]wire.PATInfo, len(ps))
	for i, p := range ps {
		out[i].Name, out[i].ExpiryAt = p.Name, wire.PATExpiryAtNever
		if p.ExpiryAt != nil {
			out[i].ExpiryAt = *p.ExpiryAt
		}
	}
	return out, err
}

func (h *httpAPI) DeletePersonalAccessToken(name string) error {
	_, err := h.do(http.MethodDelete, "/personal-access-tokens/"+pathID(wire.NamedID(name)), nil, nil, nil)
	return err
}

type groupJSON struct {
	ID              uint32 `json:"id"`
	Name            string `json:"name"`
	PartitionsCount uint32 `json:"partitions_count"`
	MembersCount    uint32 `json:"members_count"`
	Members         []struct {
		ID         uint32   `json:"id"`
		Partitions []uint32 `json:"partitions"`
	} `json:"members"`
}

func (g groupJSON) wire() wire.ConsumerGroupResponse {
	return wire.ConsumerGroupResponse{ID: g.ID, Name: g.Name, PartitionsCount: g.PartitionsCount, MembersCount: g.MembersCount}
}

func groupsPath(stream, topic wire.Identifier) string {
	return topicPath(stream, topic) + "/consumer-groups"
}

func (h *httpAPI) CreateConsumerGroup(stream, topic wire.Identifier, name string) (wire.ConsumerGroupResponse, error) {
	var g groupJSON
	_, err := h.do(http.MethodPost, groupsPath(stream, topic), nil, map[string]string{"name": name}, &g)
	return g.wire(), err
}

func (h *httpAPI) GetConsumerGroups(stream, topic wire.Identifier) ([]wire.ConsumerGroupResponse, error) {
	var gs []groupJSON
	_, err := h.do(http.MethodGet, groupsPath(stream, topic), nil, nil, &gs)
	out := make([]wire.ConsumerGroupResponse, len(gs))
	for i, g := range gs {
		out[i] = g.wire()
	}
	return out, err
}

func (h *httpAPI) GetConsumerGroup(stream, topic, group wire.Identifier) (wire.ConsumerGroupDetails, bool, error) {
	var g groupJSON
	found, err := h.do(http.MethodGet, groupsPath(stream, topic)+"/"+pathID(group), nil, nil, &g)
	d := wire.ConsumerGroupDetails{Group: g.wire()}
	for _, m := range g.Members {
		d.Members = append(d.Members, wire.ConsumerGroupMember{ID: m.ID, Partitions: m.Partitions})
	}
	return d, found, err
}

func (h *httpAPI) DeleteConsumerGroup(stream, topic, group wire.Identifier) error {
	_, err := h.do(http.MethodDelete, groupsPath(stream, topic)+"/"+pathID(group), nil, nil, nil)
	return err
}

// Join and leave have no REST route: HTTP polls are never group members
// (http.md 4.7).
func (h *httpAPI) JoinConsumerGroup(_, _, _ wire.Identifier) error {
	return fmt.Errorf("join a consumer group: %w", errNotOverHTTP)
}

func (h *httpAPI) LeaveConsumerGroup(_, _, _ wire.Identifier) error {
	return fmt.Errorf("leave a consumer group: %w", errNotOverHTTP)
}

var _ api = (*httpAPI)(nil)
