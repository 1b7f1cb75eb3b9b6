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

package helmchart

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// maxMemo is how many renders a Renderer remembers before it forgets them all and starts again.
const maxMemo = 256

// Renderer renders Helm charts in process and remembers each render by the hash of its inputs. Its zero value is
// not ready: use New. A Renderer is safe for concurrent use.
type Renderer struct {
	mu       sync.Mutex
	memo     map[string][]byte
	onRender func()
}

// Option configures a Renderer.
type Option func(*Renderer)

// OnRender has the Renderer call f each time it renders a chart rather than answering from its memo.
func OnRender(f func()) Option {
	return func(r *Renderer) { r.onRender = f }
}

// New returns a Renderer with an empty memo.
func New(opts ...Option) *Renderer {
	r := &Renderer{memo: map[string][]byte{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Render renders the chart whose files (paths relative to the chart root) are given, as `helm template` would:
// CRDs first when spec asks, then templates in Helm's install order, then hooks unless skipped, never NOTES.txt.
// kubeVersion is the cluster's version for .Capabilities unless the spec names its own.
func (r *Renderer) Render(files map[string][]byte, spec Spec, kubeVersion string) ([]byte, error) {
	if spec.Chart.NameTemplate != "" {
		name, err := templateName(spec.Chart)
		if err != nil {
			return nil, fmt.Errorf("helm chart %q: %w", spec.Chart.Name, err)
		}
		spec.Chart.ReleaseName, spec.Chart.NameTemplate = name, ""
	}
	if err := checkSize(files); err != nil {
		return nil, fmt.Errorf("helm chart %q: %w", spec.Chart.Name, err)
	}
	files, err := loadable(files)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: %w", spec.Chart.Name, err)
	}
	if err := refuseNondeterministic(files); err != nil {
		return nil, err
	}
	ch, err := loader.LoadFiles(buffered(files))
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: loading: %w", spec.Chart.Name, err)
	}
	vals, err := userValues(ch, spec)
	if err != nil {
		return nil, err
	}
	if spec.Chart.KubeVersion != "" {
		kubeVersion = spec.Chart.KubeVersion
	}
	key, err := memoKey(files, vals, spec, kubeVersion)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	out, ok := r.memo[key]
	r.mu.Unlock()
	if ok {
		return out, nil
	}
	if r.onRender != nil {
		r.onRender()
	}
	out, err = render(ch, vals, spec, kubeVersion)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.memo) >= maxMemo {
		r.memo = map[string][]byte{}
	}
	r.memo[key] = out
	r.mu.Unlock()
	return out, nil
}

func checkSize(files map[string][]byte) error {
	total := 0
	for _, b := range files {
		total += len(b)
	}
	if total > MaxChartBytes {
		return fmt.Errorf("chart files are %d bytes, more than the %d allowed", total, MaxChartBytes)
	}
	return nil
}

// buffered lists the files for Helm's loader in path order, all with the same time, so loads are reproducible.
func buffered(files map[string][]byte) []*archive.BufferedFile {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*archive.BufferedFile, 0, len(names))
	for _, n := range names {
		out = append(out, &archive.BufferedFile{Name: n, ModTime: time.Unix(0, 0).UTC(), Data: files[n]})
	}
	return out
}

// memoKey hashes everything a render depends on: the chart's files, the user's values, the release, the cluster's
// capabilities and the output flags.
func memoKey(files map[string][]byte, vals map[string]any, spec Spec, kubeVersion string) (string, error) {
	valuesJSON, err := json.Marshal(vals)
	if err != nil {
		return "", fmt.Errorf("helm chart %q: values: %w", spec.Chart.Name, err)
	}
	h := sha256.New()
	field := func(b []byte) {
		_, _ = fmt.Fprintf(h, "%d:", len(b))
		_, _ = h.Write(b)
	}
	for _, f := range buffered(files) {
		field([]byte(f.Name))
		field(f.Data)
	}
	field(valuesJSON)
	field([]byte(releaseName(spec)))
	field([]byte(namespace(spec)))
	field([]byte(kubeVersion))
	for _, v := range spec.Chart.ApiVersions {
		field([]byte(v))
	}
	field([]byte(fmt.Sprintf("crds=%t hooks=%t tests=%t", spec.Chart.IncludeCRDs, spec.Chart.SkipHooks,
		spec.Chart.SkipTests)))
	return hex.EncodeToString(h.Sum(nil)), nil
}
