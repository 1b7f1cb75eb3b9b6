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

package podproc

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// fakeManagerEnv makes the test binary act as bin/manager: it serves /readyz on --health-probe-bind-address,
// prints its pod and hash, and exits on SIGTERM.
const fakeManagerEnv = "PODPROC_FAKE_MANAGER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeManagerEnv) == "1" {
		fakeManager()
		return
	}
	os.Exit(m.Run())
}

func fakeManager() {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	probe := fs.String("health-probe-bind-address", "", "")
	hash := fs.String("pod-template-hash", "", "")
	fs.SetOutput(nil)
	var known []string
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "--health-probe-bind-address=") || strings.HasPrefix(a, "--pod-template-hash=") {
			known = append(known, a)
		}
	}
	_ = fs.Parse(known)
	fmt.Printf("pod=%s hash=%s\n", os.Getenv("POD_NAME"), *hash)
	http.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	go func() { _ = http.ListenAndServe(*probe, nil) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	fmt.Println("SIGTERM")
}

func TestHarnessRunsAProcessPerBoundPodAndStopsItWhenThePodGoes(t *testing.T) {
	t.Setenv(fakeManagerEnv, "1")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "m-1", Namespace: "ns", UID: "uid-1",
			Labels: map[string]string{"app": "m", "rollouts-pod-template-hash": "abc"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "manager"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	cs := fake.NewClientset(pod)
	h := New(Config{Client: cs, Namespace: "ns", Selector: "app=m", Binary: os.Args[0], WorkDir: t.TempDir(),
		Logf: t.Logf})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	pods := cs.CoreV1().Pods("ns")
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	if len(h.Processes()) != 0 {
		t.Fatal("a process started for an unbound pod")
	}
	// The scheduler binds the pod, kwok's pod-process-backed stage makes it Running.
	pod.Spec.NodeName = "kwok-node-0"
	pod.Status.Phase = corev1.PodRunning
	if _, err := pods.Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	wait("the pod's process", func() bool { return h.Process("m-1") != nil })
	p := h.Process("m-1")
	wait("the pod Ready from the process' /readyz", func() bool {
		got, err := pods.Get(ctx, "m-1", metav1.GetOptions{})
		return err == nil && podReady(got)
	})
	if logs := p.Logs(); !strings.Contains(logs, "pod=m-1 hash=abc") {
		t.Fatalf("the process did not get the pod's name and hash: %q", logs)
	}
	if err := pods.Delete(ctx, "m-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wait("SIGTERM and exit", func() bool {
		select {
		case <-p.Exited():
			return p.Terminated() && strings.Contains(p.Logs(), "SIGTERM")
		default:
			return false
		}
	})
}
