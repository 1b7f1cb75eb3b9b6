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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/siteops/siteops/test/testenv"
)

// shardManagerKubeconfig names the kubeconfig file of a manager process started by startShardManager; set, it
// makes TestShardManagerProcess run that manager.
const shardManagerKubeconfig = "SITEOPS_SHARD_MANAGER_KUBECONFIG"

// TestShardManagerProcess is not a test of its own: it is the manager process of the sharding tests, the test
// binary started again by startShardManager with the manager's flags after "--". It parses them and runs the
// manager as main does, with the schedule clock 2 minutes ahead (a new CronJob is due at once), until SIGTERM.
func TestShardManagerProcess(t *testing.T) {
	kubeconfig := os.Getenv(shardManagerKubeconfig)
	if kubeconfig == "" {
		t.Skip("the manager process of TestShardedManagers*, started by it")
	}
	o, zo, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), flag.Args())
	if err != nil {
		t.Fatal(err)
	}
	log := zap.New(zap.UseFlagOptions(&zo), zap.WriteTo(os.Stderr))
	ctrl.SetLogger(log)
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, o, offsetClock{offset: 2 * time.Minute}, log); err != nil {
		t.Fatal(err)
	}
}

// shardManager is a manager process of the sharding tests.
type shardManager struct {
	name string
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{}
}

// startShardManager starts a manager process named name as its own apiserver user, with the flags every
// sharding test uses and args; it is stopped (SIGTERM) when the test ends unless it was killed before.
func startShardManager(t *testing.T, env *testenv.Env, name string, args ...string) *shardManager {
	t.Helper()
	g := NewWithT(t)
	user, err := env.AddUser(envtest.User{Name: "manager-" + name, Groups: []string{"system:masters"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	kc, err := user.KubeConfig()
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	g.Expect(os.WriteFile(path, kc, 0o600)).To(Succeed())
	flags := append([]string{
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--receiver-bind-address=0",
		"--standby-bind-address=0", "--enable-webhooks=false", "--leader-election-namespace=" + systemNS,
		"--work-dir=" + filepath.Join(dir, "work"), "--zap-devel=false", "--zap-log-level=debug",
	}, args...)
	m := &shardManager{name: name, logs: &lockedBuffer{}, done: make(chan struct{})}
	m.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^TestShardManagerProcess$", "--"}, flags...)...)
	m.cmd.Env = append(os.Environ(), shardManagerKubeconfig+"="+path)
	m.cmd.Stdout, m.cmd.Stderr = m.logs, m.logs
	g.Expect(m.cmd.Start()).To(Succeed())
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		_ = m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-m.done:
		case <-time.After(eventually):
			t.Errorf("manager %s did not stop", name)
			_ = m.cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("manager %s logs:\n%s", name, tail(m.logs.String(), 40))
		}
	})
	return m
}

// kill ends the manager at once, as a node failure or an OOM kill would: no lease released, nothing flushed.
func (m *shardManager) kill(t *testing.T) {
	t.Helper()
	NewWithT(t).Expect(m.cmd.Process.Kill()).To(Succeed())
	<-m.done
}

// apiWrite is one "api write" log line of a manager: every create, update, patch, apply and delete its
// reconcilers send (dry runs included), as the write recorder logs it.
type apiWrite struct {
	Msg       string `json:"msg"`
	Verb      string `json:"verb"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	DryRun    bool   `json:"dryRun"`
}

// writes returns the manager's writes so far.
func (m *shardManager) writes() []apiWrite {
	var out []apiWrite
	sc := bufio.NewScanner(strings.NewReader(m.logs.String()))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		var w apiWrite
		if json.Unmarshal(sc.Bytes(), &w) == nil && w.Msg == "api write" {
			out = append(out, w)
		}
	}
	return out
}
