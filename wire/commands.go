package wire

// Operation is the operation byte of a request (byte 176) and a reply
// (byte 208), protocol-framing.md section 2.
type Operation uint8

// Declared operation bytes. Every other value is undeclared, and a request
// carrying one is dropped at header validation.
const (
	OpReserved                        Operation = 0
	OpRegister                        Operation = 1
	OpNonReplicated                   Operation = 2
	OpLogout                          Operation = 3
	OpCreateTopicWithAssignments      Operation = 64
	OpCreatePartitionsWithAssignments Operation = 65
	OpRemoveConsumerGroupMember       Operation = 66
	OpCompleteConsumerGroupRevocation Operation = 67
	OpTruncatePartition               Operation = 68 // also answers DeleteSegments (138)
	OpCreateStream                    Operation = 128
	OpUpdateStream                    Operation = 129
	OpDeleteStream                    Operation = 130
	OpPurgeStream                     Operation = 131
	OpCreateTopic                     Operation = 132
	OpUpdateTopic                     Operation = 133
	OpDeleteTopic                     Operation = 134
	OpPurgeTopic                      Operation = 135
	OpCreatePartitions                Operation = 136
	OpDeletePartitions                Operation = 137
	OpDeleteSegments                  Operation = 138
	OpCreateConsumerGroup             Operation = 139
	OpDeleteConsumerGroup             Operation = 140
	OpCreateUser                      Operation = 141
	OpUpdateUser                      Operation = 142
	OpDeleteUser                      Operation = 143
	OpChangePassword                  Operation = 144
	OpUpdatePermissions               Operation = 145
	OpCreatePersonalAccessToken       Operation = 146
	OpDeletePersonalAccessToken       Operation = 147
	OpJoinConsumerGroup               Operation = 148
	OpLeaveConsumerGroup              Operation = 149
	OpUpdateResource                  Operation = 150 // ours: the target release names code 16 but no byte
	OpSendMessages                    Operation = 160
	OpStoreConsumerOffset             Operation = 161
	OpDeleteConsumerOffset            Operation = 162
	OpSendProducerMessages            Operation = 163 // ours: the target release names code 107's command but no byte
)

// Band boundaries of section 2.
const (
	opInternalFirst  Operation = 64
	opMetadataFirst  Operation = 128
	opPartitionFirst Operation = 160
)

// operationNames holds a name for exactly the declared operations.
var operationNames = map[Operation]string{
	OpRegister:                        "Register",
	OpNonReplicated:                   "NonReplicated",
	OpLogout:                          "Logout",
	OpCreateTopicWithAssignments:      "CreateTopicWithAssignments",
	OpCreatePartitionsWithAssignments: "CreatePartitionsWithAssignments",
	OpRemoveConsumerGroupMember:       "RemoveConsumerGroupMember",
	OpCompleteConsumerGroupRevocation: "CompleteConsumerGroupRevocation",
	OpTruncatePartition:               "TruncatePartition",
	OpCreateStream:                    "CreateStream",
	OpUpdateStream:                    "UpdateStream",
	OpDeleteStream:                    "DeleteStream",
	OpPurgeStream:                     "PurgeStream",
	OpCreateTopic:                     "CreateTopic",
	OpUpdateTopic:                     "UpdateTopic",
	OpDeleteTopic:                     "DeleteTopic",
	OpPurgeTopic:                      "PurgeTopic",
	OpCreatePartitions:                "CreatePartitions",
	OpDeletePartitions:                "DeletePartitions",
	OpDeleteSegments:                  "DeleteSegments",
	OpCreateConsumerGroup:             "CreateConsumerGroup",
	OpDeleteConsumerGroup:             "DeleteConsumerGroup",
	OpCreateUser:                      "CreateUser",
	OpUpdateUser:                      "UpdateUser",
	OpDeleteUser:                      "DeleteUser",
	OpChangePassword:                  "ChangePassword",
	OpUpdatePermissions:               "UpdatePermissions",
	OpCreatePersonalAccessToken:       "CreatePersonalAccessToken",
	OpDeletePersonalAccessToken:       "DeletePersonalAccessToken",
	OpJoinConsumerGroup:               "JoinConsumerGroup",
	OpLeaveConsumerGroup:              "LeaveConsumerGroup",
	OpUpdateResource:                  "UpdateResource",
	OpSendMessages:                    "SendMessages",
	OpStoreConsumerOffset:             "StoreConsumerOffset",
	OpDeleteConsumerOffset:            "DeleteConsumerOffset",
	OpSendProducerMessages:            "SendProducerMessages",
}

// Name returns the operation's name, or "Undeclared".
func (op Operation) Name() string {
	if n, ok := operationNames[op]; ok {
		return n
	}
	return "Undeclared"
}

// OperationDeclared reports whether op is one of the declared values of
// section 2 (0 is not).
func OperationDeclared(op Operation) bool {
	_, ok := operationNames[op]
	return ok
}

// OperationClientAllowed reports whether a client may send op. The internal
// band (64-68) is declared, so it passes header validation, but the server
// refuses it with Eviction 4 (section 2; 68 included, unlike the snapshot).
func OperationClientAllowed(op Operation) bool {
	return OperationDeclared(op) && !op.Internal()
}

// Internal reports whether op is in the internal band 64-127.
func (op Operation) Internal() bool { return op >= opInternalFirst && op < opMetadataFirst }

// Metadata reports whether op is in the metadata band 128-159.
func (op Operation) Metadata() bool { return op >= opMetadataFirst && op < opPartitionFirst }

// Partition reports whether op is in the partition band 160 and above.
func (op Operation) Partition() bool { return op >= opPartitionFirst }

// ResultFramed reports whether a status-0 reply carrying op has a result
// section (1.8): 64-68, 128-137, 139-150, 161, 162, and Register whenever its
// body is non-empty. NonReplicated, Logout, SendMessages and DeleteSegments
// (which normally answers as 68) are raw.
func (op Operation) ResultFramed(bodyLen int) bool {
	switch op {
	case OpRegister:
		return bodyLen > 0
	case OpNonReplicated, OpLogout, OpSendMessages, OpSendProducerMessages, OpDeleteSegments:
		return false
	}
	return OperationDeclared(op)
}

// Command is a command code (protocol-framing.md section 3). NR commands
// travel as OpNonReplicated with the code at bytes 196-199; the others are
// named by their operation byte and the code itself is not on the wire.
type Command uint32

// Command codes of the snapshot plus the target release (section 11).
const (
	CmdPing                         Command = 1
	CmdGetStats                     Command = 10
	CmdGetSnapshotFile              Command = 11
	CmdGetClusterMetadata           Command = 12
	CmdDescribeOptions              Command = 13
	CmdBindSession                  Command = 15 // target release
	CmdUpdateResource               Command = 16 // target release; replaces 35, 204, 304
	CmdGetMetadataChanges           Command = 17 // target release
	CmdDumpFlightRecorder           Command = 19 // ours (DESIGN.md "Wire layouts we chose")
	CmdGetMe                        Command = 20
	CmdGetClient                    Command = 21
	CmdGetClients                   Command = 22
	CmdGetUser                      Command = 31
	CmdGetUsers                     Command = 32
	CmdCreateUser                   Command = 33
	CmdDeleteUser                   Command = 34
	CmdUpdateUser                   Command = 35 // retired in the target release
	CmdUpdatePermissions            Command = 36
	CmdChangePassword               Command = 37
	CmdLoginUser                    Command = 38 // legacy: Eviction 15
	CmdLogoutUser                   Command = 39
	CmdLoginRegister                Command = 40
	CmdGetPersonalAccessTokens      Command = 41
	CmdCreatePersonalAccessToken    Command = 42
	CmdDeletePersonalAccessToken    Command = 43
	CmdLoginWithPersonalAccessToken Command = 44 // legacy: Eviction 15
	CmdLoginRegisterWithPAT         Command = 45
	CmdPollMessages                 Command = 100
	CmdSendMessages                 Command = 101
	CmdFlushUnsavedBuffer           Command = 102 // removed in the target release
	CmdPartitionRoutes              Command = 105 // target release
	CmdDeferredPoll                 Command = 106 // target release
	CmdSendProducerMessages         Command = 107 // target release names it; the number is ours
	CmdCancelDeferredPoll           Command = 108 // target release
	CmdGroupedDeferredFetch         Command = 109 // target release
	CmdNextProducerID               Command = 110 // target release names it; the number is ours
	CmdGetConsumerOffset            Command = 120
	CmdStoreConsumerOffset          Command = 121
	CmdDeleteConsumerOffset         Command = 122
	CmdGetStream                    Command = 200
	CmdGetStreams                   Command = 201
	CmdCreateStream                 Command = 202
	CmdDeleteStream                 Command = 203
	CmdUpdateStream                 Command = 204 // retired in the target release
	CmdPurgeStream                  Command = 205 // removed in the target release
	CmdGetTopic                     Command = 300
	CmdGetTopics                    Command = 301
	CmdCreateTopic                  Command = 302
	CmdDeleteTopic                  Command = 303
	CmdUpdateTopic                  Command = 304 // retired in the target release
	CmdPurgeTopic                   Command = 305 // removed in the target release
	CmdCreatePartitions             Command = 402
	CmdDeletePartitions             Command = 403
	CmdDeleteSegments               Command = 503
	CmdGetConsumerGroup             Command = 600
	CmdGetConsumerGroups            Command = 601
	CmdCreateConsumerGroup          Command = 602
	CmdDeleteConsumerGroup          Command = 603
	CmdJoinConsumerGroup            Command = 604
	CmdLeaveConsumerGroup           Command = 605
	CmdSyncConsumerGroup            Command = 606
)

// commandInfo is one row of the command table. op is the operation byte a
// client uses for the code (OpNonReplicated for NR codes).
type commandInfo struct {
	code    Command
	name    string
	op      Operation
	retired bool
}

// commandTable is every code the snapshot or the target release names, in
// ascending order. Retired rows keep their names for logs but are not served.
var commandTable = [...]commandInfo{
	{CmdPing, "Ping", OpNonReplicated, false},
	{CmdGetStats, "GetStats", OpNonReplicated, false},
	{CmdGetSnapshotFile, "GetSnapshotFile", OpNonReplicated, false},
	{CmdGetClusterMetadata, "GetClusterMetadata", OpNonReplicated, false},
	{CmdDescribeOptions, "DescribeOptions", OpNonReplicated, false},
	{CmdBindSession, "BindSession", OpNonReplicated, false},
	{CmdUpdateResource, "UpdateResource", OpUpdateResource, false},
	{CmdGetMetadataChanges, "GetMetadataChanges", OpNonReplicated, false},
	{CmdDumpFlightRecorder, "DumpFlightRecorder", OpNonReplicated, false},
	{CmdGetMe, "GetMe", OpNonReplicated, false},
	{CmdGetClient, "GetClient", OpNonReplicated, false},
	{CmdGetClients, "GetClients", OpNonReplicated, false},
	{CmdGetUser, "GetUser", OpNonReplicated, false},
	{CmdGetUsers, "GetUsers", OpNonReplicated, false},
	{CmdCreateUser, "CreateUser", OpCreateUser, false},
	{CmdDeleteUser, "DeleteUser", OpDeleteUser, false},
	{CmdUpdateUser, "UpdateUser", OpUpdateUser, true},
	{CmdUpdatePermissions, "UpdatePermissions", OpUpdatePermissions, false},
	{CmdChangePassword, "ChangePassword", OpChangePassword, false},
	{CmdLoginUser, "LoginUser", OpNonReplicated, false},
	{CmdLogoutUser, "LogoutUser", OpLogout, false},
	{CmdLoginRegister, "LoginRegister", OpRegister, false},
	{CmdGetPersonalAccessTokens, "GetPersonalAccessTokens", OpNonReplicated, false},
	{CmdCreatePersonalAccessToken, "CreatePersonalAccessToken", OpCreatePersonalAccessToken, false},
	{CmdDeletePersonalAccessToken, "DeletePersonalAccessToken", OpDeletePersonalAccessToken, false},
	{CmdLoginWithPersonalAccessToken, "LoginWithPersonalAccessToken", OpNonReplicated, false},
	{CmdLoginRegisterWithPAT, "LoginRegisterWithPat", OpRegister, false},
	{CmdPollMessages, "PollMessages", OpNonReplicated, false},
	{CmdSendMessages, "SendMessages", OpSendMessages, false},
	{CmdFlushUnsavedBuffer, "FlushUnsavedBuffer", OpNonReplicated, true},
	{CmdPartitionRoutes, "PartitionRoutes", OpNonReplicated, false},
	{CmdDeferredPoll, "DeferredPoll", OpNonReplicated, false},
	{CmdSendProducerMessages, "SendProducerMessages", OpSendProducerMessages, false},
	{CmdCancelDeferredPoll, "CancelDeferredPoll", OpNonReplicated, false},
	{CmdGroupedDeferredFetch, "GroupedDeferredFetch", OpNonReplicated, false},
	{CmdNextProducerID, "NextProducerId", OpNonReplicated, false},
	{CmdGetConsumerOffset, "GetConsumerOffset", OpNonReplicated, false},
	{CmdStoreConsumerOffset, "StoreConsumerOffset", OpStoreConsumerOffset, false},
	{CmdDeleteConsumerOffset, "DeleteConsumerOffset", OpDeleteConsumerOffset, false},
	{CmdGetStream, "GetStream", OpNonReplicated, false},
	{CmdGetStreams, "GetStreams", OpNonReplicated, false},
	{CmdCreateStream, "CreateStream", OpCreateStream, false},
	{CmdDeleteStream, "DeleteStream", OpDeleteStream, false},
	{CmdUpdateStream, "UpdateStream", OpUpdateStream, true},
	{CmdPurgeStream, "PurgeStream", OpPurgeStream, true},
	{CmdGetTopic, "GetTopic", OpNonReplicated, false},
	{CmdGetTopics, "GetTopics", OpNonReplicated, false},
	{CmdCreateTopic, "CreateTopic", OpCreateTopic, false},
	{CmdDeleteTopic, "DeleteTopic", OpDeleteTopic, false},
	{CmdUpdateTopic, "UpdateTopic", OpUpdateTopic, true},
	{CmdPurgeTopic, "PurgeTopic", OpPurgeTopic, true},
	{CmdCreatePartitions, "CreatePartitions", OpCreatePartitions, false},
	{CmdDeletePartitions, "DeletePartitions", OpDeletePartitions, false},
	{CmdDeleteSegments, "DeleteSegments", OpDeleteSegments, false},
	{CmdGetConsumerGroup, "GetConsumerGroup", OpNonReplicated, false},
	{CmdGetConsumerGroups, "GetConsumerGroups", OpNonReplicated, false},
	{CmdCreateConsumerGroup, "CreateConsumerGroup", OpCreateConsumerGroup, false},
	{CmdDeleteConsumerGroup, "DeleteConsumerGroup", OpDeleteConsumerGroup, false},
	{CmdJoinConsumerGroup, "JoinConsumerGroup", OpJoinConsumerGroup, false},
	{CmdLeaveConsumerGroup, "LeaveConsumerGroup", OpLeaveConsumerGroup, false},
	{CmdSyncConsumerGroup, "SyncConsumerGroup", OpNonReplicated, false},
}

// retiredUnnamed are codes the target release retired whose names it does
// not give (14, 103, 104, 123, 124). They must never be reused.
var retiredUnnamed = [...]Command{14, 103, 104, 123, 124}

// lookupCommand finds c's row; the table is small and fixed, so a scan is enough.
func lookupCommand(c Command) (commandInfo, bool) {
	for _, info := range commandTable {
		if info.code == c {
			return info, true
		}
	}
	return commandInfo{}, false
}

// Name returns the command's name, or "Unknown" for a code outside the table.
func (c Command) Name() string {
	if info, ok := lookupCommand(c); ok {
		return info.name
	}
	return "Unknown"
}

// CommandServed reports whether a target-release server serves c. Unknown
// and retired codes, including 0, are answered with status 3 (InvalidCommand)
// on a bound NR request (section 5, section 11).
func CommandServed(c Command) bool {
	info, ok := lookupCommand(c)
	return ok && !info.retired
}

// CommandRetired reports whether the target release retired c.
func CommandRetired(c Command) bool {
	if info, ok := lookupCommand(c); ok {
		return info.retired
	}
	for _, r := range retiredUnnamed {
		if r == c {
			return true
		}
	}
	return false
}

// CommandReplicated reports whether c is a replicated command, i.e. it has
// its own metadata or partition operation byte. A served replicated code sent
// as NR is answered with status 5 (section 5).
func CommandReplicated(c Command) bool {
	info, ok := lookupCommand(c)
	return ok && (info.op.Metadata() || info.op.Partition())
}

// CommandLegacyLogin reports whether c is legacy LoginUser (38) or
// LoginWithPersonalAccessToken (44), answered with Eviction 15 in any state.
func CommandLegacyLogin(c Command) bool {
	return c == CmdLoginUser || c == CmdLoginWithPersonalAccessToken
}

// OperationForCommand is the client's rule of section 2: a code with its own
// operation byte uses it, 40 and 45 use Register, 39 uses Logout, and every
// other code, known or not, is sent as NonReplicated.
func OperationForCommand(c Command) Operation {
	if info, ok := lookupCommand(c); ok {
		return info.op
	}
	return OpNonReplicated
}

// CommandForOperation returns the command a request with operation op
// carries. It fails for Register (the body tells 40 from 45), NonReplicated
// (the code is in the header), the internal band and undeclared bytes.
func CommandForOperation(op Operation) (Command, bool) {
	if op == OpRegister || op == OpNonReplicated {
		return 0, false
	}
	for _, info := range commandTable {
		if info.op == op {
			return info.code, true
		}
	}
	return 0, false
}
