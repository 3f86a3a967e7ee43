package rootcreds

import (
	"fmt"
	"strings"
	"testing"
)

const (
	secretUser = "operator-admin"
	secretPass = "Xy9!very-secret-password"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func both() map[string]string {
	return map[string]string{EnvUsername: secretUser, EnvPassword: secretPass}
}

// assertNoValues fails when err (or any printed form of d) contains a credential value.
func assertNoValues(t *testing.T, d Decision, err error, values ...string) {
	t.Helper()
	var texts []string
	if err != nil {
		texts = append(texts, err.Error())
	}
	texts = append(texts, fmt.Sprint(d), fmt.Sprintf("%+v", d), fmt.Sprintf("%#v", d),
		fmt.Sprintf("%s", d.Credentials), fmt.Sprintf("%q", d.Credentials), fmt.Sprintf("%x", d.Credentials))
	for _, text := range texts {
		for _, v := range values {
			if v != "" && strings.Contains(text, v) {
				t.Fatalf("output %q contains a credential value", text)
			}
		}
	}
}

// covers ROOT-1
func TestFreshWithBothVariables(t *testing.T) {
	d, err := Resolve(Inputs{LookupEnv: env(both())})
	if err != nil || d.Action != ActionCreate {
		t.Fatalf("got %v, %v", d.Action, err)
	}
	if d.Credentials.Username() != secretUser || d.Credentials.Password() != secretPass {
		t.Fatal("credentials differ from the variables")
	}
	assertNoValues(t, d, err, secretUser, secretPass)
}

// covers ROOT-2
func TestFreshWithDefaultFlag(t *testing.T) {
	d, err := Resolve(Inputs{LookupEnv: env(nil), WithDefaultRootCredentials: true})
	if err != nil || d.Action != ActionCreate || d.Credentials.Username() != "iggy" || d.Credentials.Password() != "iggy" {
		t.Fatalf("got %v, %v", d.Action, err)
	}
}

// The flag fills in only variables that are unset (config.md §8).
// covers ROOT-2
func TestDefaultFlagKeepsSetVariables(t *testing.T) {
	d, err := Resolve(Inputs{LookupEnv: env(map[string]string{EnvPassword: secretPass}), WithDefaultRootCredentials: true})
	if err != nil || d.Credentials.Username() != "iggy" || d.Credentials.Password() != secretPass {
		t.Fatalf("got %v, %v", d.Action, err)
	}
	d, err = Resolve(Inputs{LookupEnv: env(both()), WithDefaultRootCredentials: true})
	if err != nil || d.Credentials.Username() != secretUser || d.Credentials.Password() != secretPass {
		t.Fatalf("got %v, %v", d.Action, err)
	}
}

// covers ROOT-3, ROOT-4, ROOT-10
func TestFreshWithoutCredentialsRefuses(t *testing.T) {
	cases := []struct {
		vars    map[string]string
		missing []string
		secret  string
	}{
		{nil, []string{EnvUsername, EnvPassword}, ""},
		{map[string]string{EnvUsername: secretUser}, []string{EnvPassword}, secretUser},
		{map[string]string{EnvPassword: secretPass}, []string{EnvUsername}, secretPass},
	}
	for _, c := range cases {
		d, err := Resolve(Inputs{LookupEnv: env(c.vars)})
		if err == nil || d.Action != 0 {
			t.Fatalf("vars %v: no error, action %v", c.vars, d.Action)
		}
		for _, name := range append(c.missing, FlagDefault) {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %s", err, name)
			}
		}
		assertNoValues(t, d, err, c.secret)
	}
}

// covers ROOT-7
func TestClusterNodeWithoutCredentialsAwaits(t *testing.T) {
	d, err := Resolve(Inputs{LookupEnv: env(nil), Clustered: true})
	if err != nil || d.Action != ActionAwait {
		t.Fatalf("got %v, %v", d.Action, err)
	}
	// One variable alone is still a boot error in a cluster.
	_, err = Resolve(Inputs{LookupEnv: env(map[string]string{EnvUsername: secretUser}), Clustered: true})
	if err == nil {
		t.Fatal("a lone username accepted")
	}
	assertNoValues(t, Decision{}, err, secretUser)
}

// covers ROOT-8
func TestClusterNodeWithCredentialsCreates(t *testing.T) {
	d, err := Resolve(Inputs{LookupEnv: env(both()), Clustered: true})
	if err != nil || d.Action != ActionCreate {
		t.Fatalf("got %v, %v", d.Action, err)
	}
}

// covers ROOT-9
func TestExistingMetadataIgnoresVariables(t *testing.T) {
	for _, vars := range []map[string]string{nil, both(), {EnvUsername: "x"}} {
		d, err := Resolve(Inputs{LookupEnv: env(vars), MetadataExists: true})
		if err != nil || d.Action != ActionNone || d.Credentials != (Credentials{}) {
			t.Fatalf("vars %v: got %v, %v", vars, d.Action, err)
		}
	}
}

// covers ROOT-10
func TestLengthErrorsNameTheVariableOnly(t *testing.T) {
	cases := []struct {
		user, pass, name string
	}{
		{"ab", secretPass, EnvUsername},
		{strings.Repeat("u", 51), secretPass, EnvUsername},
		{"", secretPass, EnvUsername},
		{secretUser, "pw", EnvPassword},
		{secretUser, strings.Repeat("p", 101), EnvPassword},
	}
	for _, c := range cases {
		vars := map[string]string{EnvUsername: c.user, EnvPassword: c.pass}
		d, err := Resolve(Inputs{LookupEnv: env(vars), WithDefaultRootCredentials: true})
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Fatalf("user %d bytes, pass %d bytes: err %v does not name %s", len(c.user), len(c.pass), err, c.name)
		}
		assertNoValues(t, d, err, c.user, c.pass)
	}
	// The bounds themselves are accepted.
	vars := map[string]string{EnvUsername: "abc", EnvPassword: strings.Repeat("p", 100)}
	if _, err := Resolve(Inputs{LookupEnv: env(vars)}); err != nil {
		t.Fatal(err)
	}
	vars = map[string]string{EnvUsername: strings.Repeat("u", 50), EnvPassword: "abc"}
	if _, err := Resolve(Inputs{LookupEnv: env(vars)}); err != nil {
		t.Fatal(err)
	}
}

// covers ROOT-10
func TestCredentialsPrintRedacted(t *testing.T) {
	d, _ := Resolve(Inputs{LookupEnv: env(both())})
	assertNoValues(t, d, nil, secretUser, secretPass)
	if !strings.Contains(fmt.Sprint(d), "redacted") {
		t.Fatalf("printed decision %v shows no redaction", d)
	}
}
