package config

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dotEnvLinesMax bounds the lines read from a .env file.
const dotEnvLinesMax = 4096

// WithDotEnv is step 0 of the pipeline (config.md §2): it reads the file
// named by IGGY_ENV_PATH, else ./.env (a missing ./.env is fine), and
// returns environ plus the entries it sets. Variables already set are never
// overridden. The caller (cmd) applies the result to the process so that
// IGGY_ROOT_* from the file reach the root bootstrap too, then passes it to
// Load.
func WithDotEnv(environ []string, workDir string) ([]string, error) {
	env := parseEnviron(environ)
	path, explicit := env["IGGY_ENV_PATH"]
	if !explicit {
		path = ".env"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, path)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return environ, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: env file %s (IGGY_ENV_PATH): %w", ErrInvalidConfiguration, path, err)
	}
	defer f.Close()
	out := append([]string(nil), environ...)
	scanner := bufio.NewScanner(f)
	for line := 1; scanner.Scan(); line++ {
		if line > dotEnvLinesMax {
			return nil, fmt.Errorf("%w: env file %s has more than %d lines", ErrInvalidConfiguration, path, dotEnvLinesMax)
		}
		name, value, ok, err := parseDotEnvLine(scanner.Text())
		if err != nil {
			return nil, fmt.Errorf("%w: env file %s line %d: %w", ErrInvalidConfiguration, path, line, err)
		}
		if _, set := env[name]; ok && !set {
			env[name] = value
			out = append(out, name+"="+value)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading env file %s: %w", ErrInvalidConfiguration, path, err)
	}
	return out, nil
}

// parseDotEnvLine reads "[export ]NAME=VALUE"; blank lines and # comments
// are skipped; single or double quotes around VALUE are removed. Errors
// name the line's position, never its value (it may be a secret).
func parseDotEnvLine(text string) (name, value string, ok bool, err error) {
	t := strings.TrimSpace(text)
	if t == "" || strings.HasPrefix(t, "#") {
		return "", "", false, nil
	}
	t = strings.TrimPrefix(t, "export ")
	name, value, found := strings.Cut(t, "=")
	name = strings.TrimSpace(name)
	if !found || name == "" || strings.ContainsAny(name, " \t") {
		return "", "", false, errors.New("expected NAME=VALUE")
	}
	value = strings.TrimSpace(value)
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		return name, value[1 : len(value)-1], true, nil
	}
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	return name, value, true, nil
}
