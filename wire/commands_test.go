package wire

import "testing"

// covers SESS-3
func TestRetiredCommandsNotServed(t *testing.T) {
	retired := []Command{14, 35, 102, 103, 104, 123, 124, 204, 205, 304, 305}
	for _, c := range retired {
		if CommandServed(c) || !CommandRetired(c) {
			t.Errorf("code %d must be retired and not served", c)
		}
	}
	for _, c := range []Command{0, 2, 18, 999, 60001} {
		if CommandServed(c) || CommandRetired(c) || c.Name() != "Unknown" {
			t.Errorf("code %d must be unknown", c)
		}
	}
}

// The target release's new codes are served NR commands (protocol-framing.md 11).
// covers TRAN-1
func TestTargetCommandsServed(t *testing.T) {
	for _, c := range []Command{13, 15, 17, 100, 105, 106, 108, 109, 120} {
		if !CommandServed(c) || CommandReplicated(c) || OperationForCommand(c) != OpNonReplicated {
			t.Errorf("code %d (%s) must be a served NR command", c, c.Name())
		}
	}
}

// covers TRAN-1
func TestCommandTableShape(t *testing.T) {
	snapshot := 0
	for i, info := range commandTable {
		if i > 0 && commandTable[i-1].code >= info.code {
			t.Fatalf("table not ascending at %d", info.code)
		}
		if info.name == "" || info.code.Name() != info.name {
			t.Fatalf("code %d name %q", info.code, info.name)
		}
		switch info.code {
		case 15, 16, 17, 105, 106, 107, 108, 109, 110:
		case CmdDumpFlightRecorder: // ours
		default:
			snapshot++
		}
	}
	if snapshot != 51 {
		t.Fatalf("snapshot has 51 codes, table has %d", snapshot)
	}
}

// covers TRAN-1
func TestOperationCommandMapping(t *testing.T) {
	// The 26 codes with their own operation byte (section 2 and 3).
	own := map[Command]Operation{
		33: 141, 34: 143, 35: 142, 36: 145, 37: 144, 42: 146, 43: 147, 101: 160, 121: 161, 122: 162,
		202: 128, 203: 130, 204: 129, 205: 131, 302: 132, 303: 134, 304: 133, 305: 135, 402: 136,
		403: 137, 503: 138, 602: 139, 603: 140, 604: 148, 605: 149, 16: 150, // 150 is ours (RES-5)
	}
	if len(own) != 26 {
		t.Fatal("fixture")
	}
	for c, op := range own {
		if OperationForCommand(c) != op || !CommandReplicated(c) {
			t.Errorf("code %d: op %d", c, OperationForCommand(c))
		}
		if back, ok := CommandForOperation(op); !ok || back != c {
			t.Errorf("op %d: code %d %v", op, back, ok)
		}
	}
	special := map[Command]Operation{40: OpRegister, 45: OpRegister, 39: OpLogout, 1: OpNonReplicated,
		38: OpNonReplicated, 44: OpNonReplicated, 777: OpNonReplicated}
	for c, op := range special {
		if OperationForCommand(c) != op || CommandReplicated(c) {
			t.Errorf("code %d: op %d", c, OperationForCommand(c))
		}
	}
	if c, ok := CommandForOperation(OpLogout); !ok || c != CmdLogoutUser {
		t.Error("logout")
	}
	for _, op := range []Operation{0, OpRegister, OpNonReplicated, 64, 68, 4, 151, 255} {
		if _, ok := CommandForOperation(op); ok {
			t.Errorf("op %d must not map to one command", op)
		}
	}
	if !CommandLegacyLogin(38) || !CommandLegacyLogin(44) || CommandLegacyLogin(40) {
		t.Error("legacy login")
	}
}

// covers TRAN-1
func TestOperationBands(t *testing.T) {
	declared := 0
	for v := 0; v < 256; v++ {
		op := Operation(v)
		if !OperationDeclared(op) {
			if op.Name() != "Undeclared" || op.ResultFramed(10) || OperationClientAllowed(op) {
				t.Errorf("undeclared %d", v)
			}
			continue
		}
		declared++
		framed := (v >= 64 && v <= 68) || (v >= 128 && v <= 150 && v != 138) || v == 161 || v == 162
		if op.ResultFramed(4) != (framed || v == 1) {
			t.Errorf("op %d framed %v", v, op.ResultFramed(4))
		}
		if OperationClientAllowed(op) == (v >= 64 && v <= 68) {
			t.Errorf("op %d client allowed %v", v, OperationClientAllowed(op))
		}
	}
	if declared != 35 { // 163 is ours (IDEM-3)
		t.Fatalf("%d declared operations, want 35", declared)
	}
	if OpRegister.ResultFramed(0) {
		t.Error("an empty Register body is raw")
	}
	if !OpCreateUser.Metadata() || !OpSendMessages.Partition() || !OpTruncatePartition.Internal() ||
		OpLogout.Metadata() || OpLeaveConsumerGroup.Partition() {
		t.Error("bands")
	}
}
