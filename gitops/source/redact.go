/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package source

import (
	"regexp"
	"strings"
)

// minSecretLen keeps one- and two-letter values out of the redaction list: they would be replaced in every
// word of every message.
const minSecretLen = 3

// redacted stands in for a credential.
const redacted = "***"

// userinfoPattern matches the credentials part of a URL (scheme://user:pass@host, or a token as the user).
var userinfoPattern = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)

// Redactor scrubs credentials out of text bound for logs, events, status and errors: the passwords and
// tokens of its credentials, private keys whole and line by line, and any URL's userinfo. Usernames alone
// are not secret.
type Redactor struct {
	values []string
}

// NewRedactor collects the secret parts of auths (nil ones are skipped).
func NewRedactor(auths ...*Auth) Redactor {
	var r Redactor
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= minSecretLen {
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

// String scrubs s.
func (r Redactor) String(s string) string {
	for _, v := range r.values {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return userinfoPattern.ReplaceAllString(s, "${1}"+redacted+"@")
}

// Error scrubs err's message and keeps err in the chain, so errors.Is and errors.As (permanence included)
// still see it; an error with nothing to scrub is returned as it is.
func (r Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
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

// redact scrubs s of the secrets of auths and of any URL userinfo.
func redact(s string, auths ...*Auth) string { return NewRedactor(auths...).String(s) }

// redactErr scrubs err of the secrets of auths; permanence is kept.
func redactErr(err error, auths ...*Auth) error { return NewRedactor(auths...).Error(err) }
