package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode"

	"github.com/iggygo/iggy/wire"
)

// apiError is every non-success answer. JSON errors carry the body of
// http.md 2.1; plain ones are the framework rejections of 1 (415, 400
// syntax, 422 shape, 413), whose body is the reason as text.
type apiError struct {
	status int
	id     uint32
	code   string
	reason string
	field  string // "" is JSON null
	plain  bool
}

func (e *apiError) Error() string { return e.reason }

// errorBody is the JSON error of http.md 2.1.
type errorBody struct {
	ID     uint32  `json:"id"`
	Code   string  `json:"code"`
	Reason string  `json:"reason"`
	Field  *string `json:"field"`
}

// fromCode wraps an Iggy code with the status of http.md 2.2; field names
// the offending input, or "" to take the code's usual field (2.1).
func fromCode(code wire.Code, field string) *apiError {
	if field == "" {
		field = codeField(code)
	}
	return &apiError{status: codeStatus(code), id: uint32(code), code: snakeCase(code.Name()),
		reason: reasonOf(code.Name()), field: field}
}

// codeStatus is the table of http.md 2.2.
func codeStatus(code wire.Code) int {
	switch code {
	case wire.StreamIdNotFound, wire.TopicIdNotFound, wire.PartitionNotFound, wire.SegmentNotFound,
		wire.ClientNotFound, wire.ConsumerGroupIdNotFound, wire.ConsumerGroupNameNotFound,
		wire.ConsumerGroupMemberNotFound, wire.ConsumerOffsetNotFound, wire.ResourceNotFound:
		return http.StatusNotFound
	case wire.Unauthenticated, wire.AccessTokenMissing, wire.InvalidAccessToken, wire.InvalidPersonalAccessToken:
		return http.StatusUnauthorized
	case wire.Unauthorized:
		return http.StatusForbidden
	case wire.TransientNotAccepted, wire.CannotEstablishConnection:
		return http.StatusServiceUnavailable // nothing was admitted: safe to send again (RELAY-14)
	case wire.DeferredPollCapacityExceeded:
		return http.StatusTooManyRequests // too many parked polls: retry later (DEFP-11, DEFP-12)
	case wire.PartitionIncarnationMismatch:
		return http.StatusConflict // a position of a deleted and recreated partition (MSG-6)
	case wire.TransientNotCommitted:
		// The write may still commit: a 503 would tell the client that it
		// may resend, so the outcome-unknown class is 504 (RELAY-15).
		return http.StatusGatewayTimeout
	}
	return http.StatusBadRequest
}

// codeField is the field mapping of http.md 2.1.
func codeField(code wire.Code) string {
	switch code {
	case wire.StreamIdNotFound, wire.InvalidStreamId:
		return "stream_id"
	case wire.TopicIdNotFound, wire.InvalidTopicId:
		return "topic_id"
	case wire.PartitionNotFound:
		return "partition_id"
	case wire.SegmentNotFound:
		return "segment_id"
	case wire.ClientNotFound:
		return "client_id"
	case wire.InvalidStreamName, wire.StreamNameAlreadyExists, wire.InvalidTopicName, wire.TopicNameAlreadyExists,
		wire.InvalidConsumerGroupName, wire.ConsumerGroupNameAlreadyExists,
		wire.InvalidPersonalAccessTokenName, wire.PersonalAccessTokenAlreadyExists:
		return "name"
	case wire.InvalidOffset:
		return "offset"
	case wire.InvalidConsumerGroupId:
		return "consumer_group_id"
	case wire.UserAlreadyExists:
		return "username"
	}
	return ""
}

// snakeCase turns an error name (StreamIdNotFound) into its code (stream_id_not_found).
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// reasonOf is the human text of an error name: "Stream id not found."
func reasonOf(name string) string {
	words := strings.ReplaceAll(snakeCase(name), "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:] + "."
}

// Hand-built errors of http.md 2.3 and the plain framework rejections.
func notFound() *apiError {
	return &apiError{status: http.StatusNotFound, id: http.StatusNotFound, code: "not_found", reason: "Resource not found"}
}

func plainError(status int, reason string) *apiError {
	return &apiError{status: status, reason: reason, plain: true}
}

func timeoutError(code, reason string) *apiError {
	return &apiError{status: http.StatusGatewayTimeout, id: http.StatusGatewayTimeout, code: code, reason: reason}
}

// unavailable is the shared "cannot commit now" 503 (id 9): nothing was admitted.
func unavailable(reason string) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, id: uint32(wire.CannotEstablishConnection),
		code: "cannot_establish_connection", reason: reason}
}

// invalidCommand is InvalidCommand (3) naming the offending member (RES-18, RES-22).
func invalidCommand(field string) *apiError { return fromCode(wire.InvalidCommand, field) }

// callError maps a node call's failure. onTimeout is the answer when the
// node did not reply in time: the outcome of a write is then unknown.
func callError(err error, onTimeout *apiError) *apiError {
	var ce *codeError
	var ev *evictedError
	switch {
	case errors.As(err, &ce):
		return fromCode(ce.code, "")
	case errors.As(err, &ev):
		return fromCode(ev.e.ClientError(), "")
	case errors.Is(err, errTimeout):
		return onTimeout
	case errors.Is(err, errConnClosed):
		return unavailable("The node session ended; send the request again.")
	}
	return &apiError{status: http.StatusBadGateway, id: http.StatusBadGateway, code: "node_failed",
		reason: "The node answered with a frame the adapter cannot read."}
}

// writeError answers with e; 503 carries Retry-After (http.md 1).
func writeError(w http.ResponseWriter, e *apiError) {
	if e.status == http.StatusServiceUnavailable || e.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if e.plain {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(e.status)
		_, _ = w.Write([]byte(e.reason))
		return
	}
	body := errorBody{ID: e.id, Code: e.code, Reason: e.reason}
	if e.field != "" {
		body.Field = &e.field
	}
	writeJSON(w, e.status, body)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value written is built from decoded replies: a failure is a bug.
		http.Error(w, "cannot encode the response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
