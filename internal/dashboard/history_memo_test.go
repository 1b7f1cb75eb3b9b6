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
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	"github.com/siteops/siteops/internal/sitesyncledger"
	"github.com/siteops/siteops/test/gitserver"
)

// TestAnUnreadableHistoryIsFetchedAgainOnlyAfterAWhile: a Site view open on a rendered branch that cannot be
// read renders at every status change; the Git server sees one fetch until historyRetry has passed.
func TestAnUnreadableHistoryIsFetchedAgainOnlyAfterAWhile(t *testing.T) {
	srv := gitserver.Start(t, gitserver.Options{Username: "siteops", Password: "not-given-here"})
	clk := clocktesting.NewFakePassiveClock(time.Now())
	s, err := New(env.Config, env.Scheme, Options{Clock: clk,
		Rendered: sitesyncledger.Source{WorkDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ss := sitesynctest.Valid("ns")
	ss.Spec.Source.URL = srv.NewRepo(t, "config", map[string]string{"README.md": "# config\n"})
	ctx := context.Background()

	if _, err := s.siteHistory(ctx, ss, "paris"); err == nil {
		t.Fatal("read the history without the credentials the server asks for")
	}
	fetched := srv.Requests()
	if fetched == 0 {
		t.Fatal("the Git server saw no request")
	}
	clk.SetTime(clk.Now().Add(historyRetry - time.Second))
	if _, err := s.siteHistory(ctx, ss, "paris"); err == nil {
		t.Error("the second render forgot why the history could not be read")
	}
	if n := srv.Requests(); n != fetched {
		t.Errorf("the second render fetched again (%d requests, then %d)", fetched, n)
	}
	clk.SetTime(clk.Now().Add(time.Second))
	if _, err := s.siteHistory(ctx, ss, "paris"); err == nil {
		t.Error("read the history without the credentials the server asks for")
	}
	if n := srv.Requests(); n == fetched {
		t.Errorf("no fetch once %s passed", historyRetry)
	}
}
