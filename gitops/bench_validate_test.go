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

package gitops

import (
	"context"
	"testing"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/objects"
	"github.com/siteops/siteops/gitops/render"
	"github.com/siteops/siteops/gitops/validate"
)

// BenchmarkRenderAndValidateSite is BenchmarkRenderSite plus the validation of the output, with the schemas
// compiled once as a Syncer keeps them: the two side by side give the validation's share of a site's cost.
func BenchmarkRenderAndValidateSite(b *testing.B) {
	m, _ := benchRepo()
	tree := onDisk(b, m)
	check, err := newChecker(validate.NewSchemas(), tree, ValidationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		in, err := guard.Site(tree, "overlays/site042")
		if err != nil {
			b.Fatal(err)
		}
		out, err := render.Build(in, "overlays/site042", render.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := (builder{check: check}).checkOutput(ctx, &siteRun{name: "site042"}, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateSite is the validation alone, decoding included, of the output BenchmarkRenderSite builds.
func BenchmarkValidateSite(b *testing.B) {
	m, _ := benchRepo()
	tree := onDisk(b, m)
	check, err := newChecker(validate.NewSchemas(), tree, ValidationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	in, err := guard.Site(tree, "overlays/site042")
	if err != nil {
		b.Fatal(err)
	}
	out, err := render.Build(in, "overlays/site042", render.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		objs, err := objects.Decode(out)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := check.check(ctx, "site042", objs); err != nil {
			b.Fatal(err)
		}
	}
}
