package httpapi

import "net/http"

// routes is the route table of http.md 4 as the target release keeps it:
// no purge routes (RES-43), no message flush, no PATCH (RES-23). Updates
// are flat PUT bodies sent as UpdateResource (RES-19).
func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	const topic = "/streams/{stream_id}/topics/{topic_id}"
	public := map[string]handler{
		"GET /ping":                          s.handlePing,
		"POST /users/login":                  s.login,
		"POST /users/refresh-token":          s.refresh,
		"POST /personal-access-tokens/login": s.patLogin,
		"DELETE /users/logout":               s.logout,
	}
	for pattern, h := range public {
		s.handle(m, pattern, h)
	}
	authed := map[string]func(caller, http.ResponseWriter, *http.Request) *apiError{
		"GET /users":                                          s.getUsers,
		"POST /users":                                         s.createUser,
		"GET /users/{user_id}":                                s.getUser,
		"PUT /users/{user_id}":                                s.updateUser,
		"DELETE /users/{user_id}":                             s.deleteUser,
		"PUT /users/{user_id}/password":                       s.changePassword,
		"PUT /users/{user_id}/permissions":                    s.updatePermissions,
		"GET /personal-access-tokens":                         s.getTokens,
		"POST /personal-access-tokens":                        s.createToken,
		"DELETE /personal-access-tokens/{name}":               s.deleteToken,
		"GET /streams":                                        s.getStreams,
		"POST /streams":                                       s.createStream,
		"GET /streams/{stream_id}":                            s.getStream,
		"PUT /streams/{stream_id}":                            s.updateStream,
		"DELETE /streams/{stream_id}":                         s.deleteStream,
		"GET /streams/{stream_id}/topics":                     s.getTopics,
		"POST /streams/{stream_id}/topics":                    s.createTopic,
		"GET " + topic:                                        s.getTopic,
		"PUT " + topic:                                        s.updateTopic,
		"DELETE " + topic:                                     s.deleteTopic,
		"POST " + topic + "/partitions":                       s.createPartitions,
		"DELETE " + topic + "/partitions":                     s.deletePartitions,
		"DELETE " + topic + "/partitions/{partition_id}":      s.deleteSegments,
		"GET " + topic + "/consumer-groups":                   s.getGroups,
		"POST " + topic + "/consumer-groups":                  s.createGroup,
		"GET " + topic + "/consumer-groups/{group_id}":        s.getGroup,
		"DELETE " + topic + "/consumer-groups/{group_id}":     s.deleteGroup,
		"POST " + topic + "/messages":                         s.sendMessages,
		"GET " + topic + "/messages":                          s.pollMessages,
		"GET " + topic + "/messages/deferred":                 s.deferredPoll,
		"POST " + topic + "/messages/deferred":                s.deferredPollCommit,
		"GET " + topic + "/consumer-offsets":                  s.getOffset,
		"PUT " + topic + "/consumer-offsets":                  s.storeOffset,
		"DELETE " + topic + "/consumer-offsets/{consumer_id}": s.deleteOffset,
		"GET /stats":                                          s.getStats,
		"GET /clients":                                        s.getClients,
		"GET /clients/{client_id}":                            s.getClient,
		"GET /cluster/metadata":                               s.getCluster,
		"GET /options/{scope}":                                s.getOptions,
		"POST /snapshot":                                      s.snapshot,
		"GET /metadata/changes":                               s.getChanges,
		"POST /debug/flight-recorder/dump":                    s.dumpFlightRecorder,
	}
	if mc := s.opts.HTTP.Metrics; mc.Enabled && mc.Endpoint != "" {
		authed["GET "+mc.Endpoint] = s.getMetrics
	}
	for pattern, h := range authed {
		s.handle(m, pattern, s.authed(h))
	}
	return m
}
