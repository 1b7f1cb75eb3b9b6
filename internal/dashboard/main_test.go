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

package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/test/testenv"
)

// env is the package's control plane; k8s reaches it as a cluster admin, the way a user's kubeconfig would.
var (
	env *testenv.Env
	k8s client.Client
)

// TestMain starts one control plane for every test of the package.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	var err error
	if env, err = testenv.Start(testenv.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// newNamespace creates a namespace of its own for a test.
func newNamespace(tb testing.TB) string {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "dashboard-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		tb.Fatal(err)
	}
	return ns.Name
}

// startDashboard starts a dashboard on the SiteSyncs of ns and serves it on 127.0.0.1; it returns its URL.
func startDashboard(tb testing.TB, ns string) string {
	tb.Helper()
	return startDashboardWith(tb, Options{Namespace: ns})
}

// startDashboardWith starts a dashboard with opts and serves it on 127.0.0.1; it returns its URL.
func startDashboardWith(tb testing.TB, opts Options) string {
	tb.Helper()
	srv, err := New(env.Config, env.Scheme, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		cancel()
		tb.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx } // ends the event streams
	hs.Start()
	tb.Cleanup(func() { cancel(); hs.Close() })
	return hs.URL
}

// chromiumPath finds Debian's chromium, which hack/chromium.sh (make test-deps) installs.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Fatal("no chromium on PATH: run hack/chromium.sh (make test-dashboard does)")
	return ""
}

// newBrowser starts a headless Chromium for the test and returns a tab's context.
func newBrowser(tb testing.TB) context.Context {
	tb.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(tb)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1180, 720))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser, which lives as long as ctx
		tb.Fatal(err)
	}
	return ctx
}

// browse runs steps in the tab, failing the test with what it was doing when they fail or take a minute.
func browse(ctx context.Context, tb testing.TB, what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	read(ctx, tb, what, chromedp.Steps(steps...))
}

// click clicks the element the CSS selector matches, then runs steps, failing the test as browse does. A live
// update (dashboard.js) can swap in a new copy of the element between chromedp finding it and clicking it: the
// node chromedp found is gone, and click finds the element again, up to three times.
func click(ctx context.Context, tb testing.TB, what, sel string, steps ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	for attempt := 1; ; attempt++ {
		runCtx, cancel := context.WithTimeout(ctx, time.Minute)
		_, err := chromedp.Run(runCtx, chromedp.Click(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Could not find node with given id") {
			tb.Fatalf("%s: clicking %s: %v", what, sel, err)
		}
		tb.Logf("%s: %s was replaced while being clicked (%v); clicking it again", what, sel, err)
	}
	browse(ctx, tb, what, steps...)
}

// read runs an action in the tab and returns its value, failing the test as browse does.
func read[T any](ctx context.Context, tb testing.TB, what string, a chromedp.Action[T]) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	return v
}

// visible waits for an element matching the CSS selector to be visible.
func visible(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
}

// text is the visible text of the first element matching the CSS selector.
func text(sel string) chromedp.Action[string] { return chromedp.Text(chromedp.CSS(sel)) }

// screenshot saves the tab's viewport as docs/NAME.png when SITEOPS_DASHBOARD_SCREENSHOTS is set, which is how
// the guide's pictures are made: SITEOPS_DASHBOARD_SCREENSHOTS=1 go test ./internal/dashboard/.
func screenshot(ctx context.Context, tb testing.TB, name string) {
	tb.Helper()
	if os.Getenv("SITEOPS_DASHBOARD_SCREENSHOTS") == "" {
		return
	}
	png := read(ctx, tb, "taking a screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(testenv.RepoRoot(), "docs", name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("wrote %s", path)
}

// get fetches url and returns the response, closed by the test's end.
func get(tb testing.TB, url string, header http.Header) *http.Response {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// readBody reads a response's body.
func readBody(tb testing.TB, resp *http.Response) string {
	tb.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// texts is the visible text of the first element matching each CSS selector ("" for none), read at one
// instant: an update the server pushes meanwhile cannot swap an element out between two reads.
func texts(sels ...string) chromedp.Action[map[string]string] {
	js, err := json.Marshal(sels)
	if err != nil {
		panic(err) // a list of strings
	}
	return chromedp.Evaluate[map[string]string](`Object.fromEntries(` + string(js) +
		`.map(s => [s, (document.querySelector(s) || {innerText: ""}).innerText.trim()]))`)
}
