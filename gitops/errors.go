package gitops

import (
	"errors"
)

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// permanent wraps err so IsPermanent reports true; nil stays nil.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err cannot be fixed by retrying (bad URL scheme, ref not found, overlays dir missing, bad auth).
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}
