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

// Package permanent marks the errors that retrying cannot fix (a bad URL scheme, a ref that does not exist, a
// missing overlays folder, refused credentials), for every stage of the sync.
package permanent

import "errors"

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Error wraps err so Is reports true; nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// Is reports whether err, or an error it wraps, was marked by Error.
func Is(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}
