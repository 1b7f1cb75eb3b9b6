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

package arch

import (
	"reflect"
	"testing"
)

// TestPackageVarRules: the checker reports each kind of package-level var it must, and lets through only the
// exceptions, so TestLibrariesKeepNoPackageState can fail.
func TestPackageVarRules(t *testing.T) {
	const src = `package p

import (
	"errors"
	"fmt"
	re "regexp"

	"github.com/prometheus/client_golang/prometheus"
)

var ErrGone = errors.New("gone")
var errWrapped = fmt.Errorf("wrapped: %w", ErrGone)
var pattern = re.MustCompile("^a$")
var _ fmt.Stringer = nil

var counter = prometheus.NewCounter(prometheus.CounterOpts{Name: "c"})

var (
	actions = map[string]string{"a": "b"}
	limit   int
	a, b    = 1, errors.New("b")
)

var Version = "dev"
`
	got, err := disallowedVars("internal/p/p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"internal/p/p.go:16: counter",
		"internal/p/p.go:19: actions",
		"internal/p/p.go:20: limit",
		"internal/p/p.go:21: a",
		"internal/p/p.go:24: Version",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// Version is allowed in the version package's file only.
	got, err = disallowedVars(versionFile, []byte("package version\n\nvar Version = \"dev\"\n"))
	if err != nil || len(got) != 0 {
		t.Errorf("%s: got %q, %v; want nothing", versionFile, got, err)
	}
}
