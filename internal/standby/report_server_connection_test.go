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

package standby

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestReportServerClosesEveryConnection: the standby report's server answers with Connection: close and closes
// the connection, so each request of an analysis reaches the pod the preview Service selects now.
func TestReportServerClosesEveryConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") }))
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	opened := 0
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		opened++
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	c := &http.Client{Transport: tr}
	for range 3 {
		resp, err := c.Get("http://" + l.Addr().String() + "/standby")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if !resp.Close {
			t.Fatalf("response without Connection: close (header %q)", resp.Header.Get("Connection"))
		}
	}
	if opened != 3 {
		t.Fatalf("3 requests opened %d connections, want 3 (one each)", opened)
	}
}
