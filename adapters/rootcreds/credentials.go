package rootcreds

import "fmt"

// Credentials hold the root username and password. They print as a redacted
// placeholder under every fmt verb, so logging a Decision by mistake cannot
// leak them (ROOT-10).
type Credentials struct {
	username string
	password string
}

const redacted = "Credentials{<redacted>}"

// Username is the root username to create.
func (c Credentials) Username() string { return c.username }

// Password is the root password; hash it and drop it.
func (c Credentials) Password() string { return c.password }

// String redacts the values.
func (c Credentials) String() string { return redacted }

// GoString redacts the values for %#v.
func (c Credentials) GoString() string { return redacted }

// Format redacts the values for every verb, %v, %+v, %s, %q and %x included.
func (c Credentials) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }
