// Package rootcreds decides at boot how the root user comes to exist: from the
// environment, from the development default, by replication, or not at all
// because metadata already holds it. It never invents a password (ROOT-3) and
// never puts a credential value into an error (ROOT-10).
package rootcreds

import (
	"fmt"
	"strings"
)

// Names the operator sees in errors and documentation.
const (
	EnvUsername = "IGGY_ROOT_USERNAME"
	EnvPassword = "IGGY_ROOT_PASSWORD"
	FlagDefault = "--with-default-root-credentials"
	// DefaultUsername and DefaultPassword are what FlagDefault supplies for a
	// variable that is not set.
	DefaultUsername = "iggy"
	DefaultPassword = "iggy"
)

// Length bounds in bytes, the same the user commands enforce.
const (
	usernameBytesMin = 3
	usernameBytesMax = 50
	passwordBytesMin = 3
	passwordBytesMax = 100
)

// Inputs are everything the decision depends on.
type Inputs struct {
	// LookupEnv reads one environment variable (os.LookupEnv in production).
	LookupEnv func(name string) (value string, ok bool)
	// WithDefaultRootCredentials is FlagDefault.
	WithDefaultRootCredentials bool
	// MetadataExists is true when admitted storage already holds initialized
	// metadata, and so root (ROOT-9, ROOT-11).
	MetadataExists bool
	// Clustered is true for a node of a multi-replica cluster, which may wait
	// for root to be replicated instead of creating it (ROOT-7).
	Clustered bool
}

// Action is what boot does about root.
type Action uint8

const (
	// ActionNone: metadata already holds root; the variables are ignored.
	ActionNone Action = iota + 1
	// ActionCreate: create root from Decision.Credentials if this node
	// initializes metadata.
	ActionCreate
	// ActionAwait: a cluster node without credentials waits for root to be
	// replicated to it.
	ActionAwait
)

// Decision is the outcome of Resolve.
type Decision struct {
	Action      Action
	Credentials Credentials // set only for ActionCreate
}

// Resolve applies ROOT-1..4, ROOT-7 and ROOT-9. Errors name the variables and
// the flag involved, never a value.
func Resolve(in Inputs) (Decision, error) {
	if in.MetadataExists {
		return Decision{Action: ActionNone}, nil
	}
	user, userSet := in.LookupEnv(EnvUsername)
	pass, passSet := in.LookupEnv(EnvPassword)
	if in.WithDefaultRootCredentials {
		// The flag fills in only what the environment leaves unset (config.md §8).
		if !userSet {
			user, userSet = DefaultUsername, true
		}
		if !passSet {
			pass, passSet = DefaultPassword, true
		}
	}
	if !userSet && !passSet && in.Clustered {
		return Decision{Action: ActionAwait}, nil
	}
	if missing := missingNames(userSet, passSet); missing != "" {
		return Decision{}, fmt.Errorf("fresh storage needs root credentials, but %s: set both %s and %s, or pass %s (development only)",
			missing, EnvUsername, EnvPassword, FlagDefault)
	}
	if err := checkLen(EnvUsername, user, usernameBytesMin, usernameBytesMax); err != nil {
		return Decision{}, err
	}
	if err := checkLen(EnvPassword, pass, passwordBytesMin, passwordBytesMax); err != nil {
		return Decision{}, err
	}
	return Decision{Action: ActionCreate, Credentials: Credentials{username: user, password: pass}}, nil
}

func missingNames(userSet, passSet bool) string {
	var missing []string
	if !userSet {
		missing = append(missing, EnvUsername)
	}
	if !passSet {
		missing = append(missing, EnvPassword)
	}
	switch len(missing) {
	case 0:
		return ""
	case 1:
		return missing[0] + " is not set"
	default:
		return strings.Join(missing, " and ") + " are not set"
	}
}

// checkLen reports a bad length without the length itself, which would leak
// part of a secret.
func checkLen(name, value string, bytesMin, bytesMax int) error {
	if len(value) < bytesMin || len(value) > bytesMax {
		return fmt.Errorf("%s must be %d to %d bytes long", name, bytesMin, bytesMax)
	}
	return nil
}
