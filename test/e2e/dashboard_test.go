//go:build e2e

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

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// dashboardRecorder is the script a test runs in a dashboard page: it keeps, for every element whose id starts
// with cell- or is phase, each distinct "state|text" it showed, in window.siteopsSeen, and marks the page load
// in window.siteopsLoad. The page's live updates replace parts of it; a reload would drop both.
const dashboardRecorder = `(() => {
  window.siteopsSeen = {};
  window.siteopsLoad = "first";
  const record = () => {
    for (const el of document.querySelectorAll('[id^="cell-"], #phase')) {
      const seen = (window.siteopsSeen[el.id] ||= []);
      const now = (el.dataset.state || "") + "|" + el.textContent.replace(/\s+/g, " ").trim();
      if (seen[seen.length - 1] !== now) seen.push(now);
    }
  };
  new MutationObserver(record).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true});
  record();
  return "recording";
})()`

// dashboardTab is one headless Chromium tab on a `siteops dashboard` the test started.
type dashboardTab struct {
	t   *testing.T
	url string
	ctx context.Context
}

// openDashboard starts `siteops dashboard` (the CLI built beside the manager) on the hub for namespace ns and
// a headless Chromium (Debian's, which make test-deps installs), and opens path in a tab with the recorder.
func openDashboard(t *testing.T, ns, path string) *dashboardTab {
	t.Helper()
	cli := filepath.Join(filepath.Dir(managerBinary(t)), "siteops")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(cli, "dashboard", "--addr", addr, "--kubeconfig", cluster.kubeconfig, "-n", ns)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("siteops dashboard: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, addr) {
		t.Fatalf("siteops dashboard printed %q (%v), want its address %s", line, err, addr)
	}
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("no chromium on PATH: make test-deps installs it (hack/chromium.sh)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser, which lives as long as that Run's context: the tab's, not a timeout's.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	d := &dashboardTab{t: t, url: "http://" + addr, ctx: ctx}
	d.run("opening "+path, chromedp.Navigate(d.url+path), chromedp.WaitVisible(`#live[data-live="live"]`))
	if got := d.eval(dashboardRecorder); got != "recording" {
		t.Fatalf("the recorder did not start: %q", got)
	}
	return d
}

// run runs actions in the tab, failing the test with what it was doing when they fail or take two minutes.
func (d *dashboardTab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(d.ctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Steps(actions...)); err != nil {
		d.t.Fatalf("dashboard, %s: %v", what, err)
	}
}

// eval evaluates a script in the tab and returns its string result.
func (d *dashboardTab) eval(script string) string {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(d.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](script))
	if err != nil {
		d.t.Fatalf("dashboard, evaluating a script: %v", err)
	}
	return v
}

// seen returns what the recorder saw element id show, in order, and fails the test when the page was loaded
// again since it opened: every change must come without a reload.
func (d *dashboardTab) seen(id string) []string {
	d.t.Helper()
	if load := d.eval(`window.siteopsLoad || "reloaded"`); load != "first" {
		d.t.Fatalf("the dashboard page was loaded again (%s): its updates must come without a reload", load)
	}
	var got []string
	if err := json.Unmarshal([]byte(d.eval(`JSON.stringify(window.siteopsSeen[`+
		fmt.Sprintf("%q", id)+`] || [])`)), &got); err != nil {
		d.t.Fatal(err)
	}
	return got
}

// states is the state part of each entry seen returns.
func states(seen []string) []string {
	out := make([]string, len(seen))
	for i, s := range seen {
		out[i], _, _ = strings.Cut(s, "|")
	}
	return out
}

// inOrder reports whether want appears in got in this order, other entries allowed between them.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
