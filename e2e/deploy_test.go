package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/iggygo/iggy/adapters/config"
)

// dockerfileStage is one FROM of the Dockerfile and the instructions under it.
type dockerfileStage struct {
	from, name string
	lines      []string
}

// readDockerfile splits the Dockerfile into stages, joining continued lines.
func readDockerfile(t *testing.T) []dockerfileStage {
	t.Helper()
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	var stages []dockerfileStage
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if strings.EqualFold(f[0], "FROM") {
			s := dockerfileStage{from: f[1]}
			if len(f) == 4 && strings.EqualFold(f[2], "AS") {
				s.name = f[3]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) > 0 {
			stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, line)
		}
	}
	return stages
}

// instruction returns the arguments of the stage's first instruction named op.
func (s dockerfileStage) instruction(op string) string {
	for _, l := range s.lines {
		if f := strings.Fields(l); strings.EqualFold(f[0], op) {
			return strings.TrimSpace(l[len(f[0]):])
		}
	}
	return ""
}

// The image is multi-stage: a golang stage compiles static binaries, a
// prebuilt stage takes the ones `make docker` compiled, and the final stage
// is an empty base holding iggy-server and iggy, run by a non-root user,
// with the /data volume, the four listeners exposed and a HEALTHCHECK that
// runs `iggy ping`. Its IGGY_ variables load as a valid configuration, and
// the binaries it copies build without cgo (go list, cheap; the full static
// build and an engine run are `make docker docker-smoke`, or this test with
// IGGY_DOCKER_TEST=1).
func TestDockerfile(t *testing.T) {
	t.Parallel()
	stages := readDockerfile(t)
	names := map[string]dockerfileStage{}
	for _, s := range stages {
		names[s.name] = s
	}
	build, prebuilt := names["build"], names["prebuilt"]
	if !strings.HasPrefix(build.from, "golang:") || prebuilt.from != "scratch" || names["binaries"].from != "${BINARIES}" {
		t.Fatalf("stages: %+v", stages)
	}
	run := build.instruction("RUN")
	for _, want := range []string{"CGO_ENABLED=0", "./cmd/iggy-server", "./cmd/iggy", "mkdir -p /out/data"} {
		if !strings.Contains(strings.Join(build.lines, "\n"), want) {
			t.Errorf("build stage lacks %q: %s", want, run)
		}
	}
	final := stages[len(stages)-1]
	if final.from != "scratch" || final.name != "" {
		t.Fatalf("final stage FROM %s AS %s", final.from, final.name)
	}
	if user := final.instruction("USER"); user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("USER %q: want a non-root user", user)
	}
	if v := final.instruction("VOLUME"); !strings.Contains(v, `"/data"`) {
		t.Errorf("VOLUME %q", v)
	}
	if hc := final.instruction("HEALTHCHECK"); !strings.Contains(hc, `"/usr/local/bin/iggy"`) || !strings.Contains(hc, `"ping"`) {
		t.Errorf("HEALTHCHECK %q: want iggy ping", hc)
	}
	env := imageEnv(t, final.instruction("ENV"))
	exposed := strings.Fields(final.instruction("EXPOSE"))
	for key, proto := range map[string]string{"IGGY_TCP_ADDRESS": "tcp", "IGGY_QUIC_ADDRESS": "udp", "IGGY_HTTP_ADDRESS": "tcp", "IGGY_WEBSOCKET_ADDRESS": "tcp"} {
		_, port, _ := strings.Cut(env[key], ":")
		if !slices.Contains(exposed, port+"/"+proto) {
			t.Errorf("%s=%s: port %s/%s not in EXPOSE %v", key, env[key], port, proto, exposed)
		}
	}
	checkLoads(t, env)
	checkNoCgo(t)
	if os.Getenv("IGGY_DOCKER_TEST") != "" {
		runDockerScript(t)
	}
}

// imageEnv reads an ENV instruction of KEY=VALUE pairs.
func imageEnv(t *testing.T, line string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, kv := range strings.Fields(line) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("ENV entry %q", kv)
		}
		env[k] = v
	}
	return env
}

// checkLoads loads env (plus the root credentials a first start needs) as
// the server would, and refuses any warning: an unknown variable is one.
func checkLoads(t *testing.T, env map[string]string, extra ...string) {
	t.Helper()
	environ := append([]string{"IGGY_ROOT_USERNAME=iggy", "IGGY_ROOT_PASSWORD=secret-pass"}, extra...)
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	_, warnings, err := config.Load(config.LoadOptions{Environ: environ, WorkDir: t.TempDir(), NumCPU: 2})
	if err != nil {
		t.Fatalf("the image's configuration does not load: %v", err)
	}
	for _, w := range warnings {
		if !strings.Contains(w, "not found; using the built-in defaults") {
			t.Errorf("configuration warning: %s", w)
		}
	}
}

// checkNoCgo lists the binaries' packages as a CGO_ENABLED=0 build sees
// them: none may need cgo, so the static binaries the image copies build.
func checkNoCgo(t *testing.T) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,CgoFiles", "./cmd/iggy-server", "./cmd/iggy")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			CgoFiles   []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if len(p.CgoFiles) > 0 {
			t.Errorf("%s needs cgo with CGO_ENABLED=0: %v", p.ImportPath, p.CgoFiles)
		}
	}
}

// runDockerScript builds the image with whatever engine runs here and
// smoke-runs it (scripts/docker.sh); minutes on a busy machine.
func runDockerScript(t *testing.T) {
	for _, step := range []string{"build", "smoke"} {
		cmd := exec.Command("scripts/docker.sh", step)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scripts/docker.sh %s: %v\n%s", step, err, out)
		}
		t.Logf("scripts/docker.sh %s:\n%s", step, out)
	}
}

// The compose cluster's roster loads as a valid configuration under the
// image's variables, and compose.yaml publishes every node's client ports.
func TestComposeClusterRoster(t *testing.T) {
	t.Parallel()
	final := readDockerfile(t)
	env := imageEnv(t, final[len(final)-1].instruction("ENV"))
	roster, err := filepath.Abs("../deploy/compose/cluster.toml")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(roster)
	if err != nil {
		t.Fatal(err)
	}
	compose, err := os.ReadFile("../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkLoads(t, env, "IGGY_CONFIG_PATH="+roster, "IGGY_CLUSTER_AUTH_ENABLED=true",
		"IGGY_CLUSTER_AUTH_SHARED_SECRET="+strings.Repeat("s", 64))
	for _, want := range []string{"IGGY_CLUSTER_AUTH_ENABLED", "IGGY_CLUSTER_AUTH_SHARED_SECRET"} {
		if !strings.Contains(string(compose), want) {
			t.Errorf("compose.yaml's cluster does not set %s", want)
		}
	}
	ports := regexp.MustCompile(`(tcp|quic|http|websocket) = (\d+)`).FindAllStringSubmatch(string(raw), -1)
	if len(ports) != 12 {
		t.Fatalf("%d client ports in the roster, want 12", len(ports))
	}
	for _, p := range ports {
		want := fmt.Sprintf(`"%s:%s`, p[2], p[2])
		if !strings.Contains(string(compose), want) {
			t.Errorf("compose.yaml does not publish %s port %s", p[1], p[2])
		}
	}
}

// The systemd unit waits for the server's notifications and runs it as a
// dedicated user on its state directory; systemd-analyze checks its
// syntax where it exists.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../deploy/systemd/iggy-server.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	for _, want := range []string{"\nType=notify\n", "\nWatchdogSec=", "\nUser=iggy\n", "\nStateDirectory=iggy\n",
		"\nEnvironment=IGGY_SYSTEM_PATH=/var/lib/iggy\n", "\nExecStart=/usr/local/bin/iggy-server\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q", strings.TrimSpace(want))
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze to verify the unit")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "iggy-server.service")
	// verify wants ExecStart to exist: point it at the server built for these tests.
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(unit, "/usr/local/bin/iggy-server", serverBin)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(analyze, "verify", path).CombinedOutput(); err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
