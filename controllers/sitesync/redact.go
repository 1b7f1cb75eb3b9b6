package sitesync

import (
	"regexp"
	"strings"

	"github.com/siteops/siteops/gitops"
)

// minRedactLen keeps very short values (which would match everywhere) out of the redaction list.
const minRedactLen = 6

// redacted replaces a credential in a message.
const redacted = "***"

// userinfoPattern matches credentials embedded in a URL (scheme://user:pass@host).
var userinfoPattern = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)

// redactor scrubs credentials out of text the controller writes to status, events, logs and errors. The gitops
// library promises not to echo credentials; this is the second line of defence.
type redactor struct {
	values []string
}

// newRedactor collects the secret parts of the given credentials: passwords, tokens and private keys (whole
// and line by line). Usernames are not secret.
func newRedactor(auths ...*gitops.Auth) redactor {
	var r redactor
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= minRedactLen {
			r.values = append(r.values, v)
		}
	}
	for _, a := range auths {
		if a == nil {
			continue
		}
		add(a.Password)
		if len(a.SSHPrivateKey) > 0 {
			add(string(a.SSHPrivateKey))
			for _, line := range strings.Split(string(a.SSHPrivateKey), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "-----") {
					add(line)
				}
			}
		}
	}
	return r
}

// string scrubs s.
func (r redactor) string(s string) string {
	for _, v := range r.values {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return userinfoPattern.ReplaceAllString(s, "${1}"+redacted+"@")
}

// error scrubs err's message and keeps err in the chain for errors.Is/As.
func (r redactor) error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.string(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError shows a scrubbed message and unwraps to the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
