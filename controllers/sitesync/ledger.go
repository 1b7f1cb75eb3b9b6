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

package sitesync

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// Ledger keeps, per SiteSync, the rendered commits of the ledger's window: the reconciler reads them from Git
// whenever the rendered head moves (and once after a start), the LedgerCollector reports from them.
type Ledger struct {
	// Window is the period the ledger covers; 0 means sitesyncledger.DefaultWindow.
	Window time.Duration

	mu    sync.Mutex
	books map[types.NamespacedName]ledgerBook
}

// ledgerBook is what a Ledger keeps of one SiteSync: the rendered head read and its commits.
type ledgerBook struct {
	head string
	pubs []ledger.Publish
}

// window is the ledger's window ending at now.
func (l *Ledger) window(now time.Time) ledger.Window {
	w := l.Window
	if w <= 0 {
		w = sitesyncledger.DefaultWindow
	}
	return ledger.Window{From: now.Add(-w), To: now}
}

// publishes are the rendered commits read for key; ok is false before the first read.
func (l *Ledger) publishes(key types.NamespacedName) (pubs []ledger.Publish, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.books[key]
	return b.pubs, ok
}

func (l *Ledger) head(key types.NamespacedName) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.books[key].head
}

func (l *Ledger) set(key types.NamespacedName, b ledgerBook) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.books == nil {
		l.books = map[types.NamespacedName]ledgerBook{}
	}
	l.books[key] = b
}

func (l *Ledger) forget(key types.NamespacedName) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.books, key)
}

// readLedger reads the rendered commits of the ledger's window when the rendered head moved. A failed read
// is logged and leaves the SiteSync's state alone: the ledger is an account of delivery, not part of it,
// and the next reconcile reads again.
func (r *Reconciler) readLedger(ctx context.Context, run *scope) error {
	head := run.obj.Status.RenderedRevision
	key := client.ObjectKeyFromObject(run.obj)
	if r.Ledger == nil || head == "" || r.Ledger.head(key) == head {
		return nil
	}
	w := r.Ledger.window(r.Clock.Now())
	pubs, err := r.syncer.ReadPublishes(ctx, syncOptions(run, r.workDir(key)), head, w.From)
	if err != nil {
		logf.FromContext(ctx).Info("reading the rendered branch for the delivery ledger", "error",
			run.redact.Error(err).Error())
		return nil
	}
	r.Ledger.set(key, ledgerBook{head: head, pubs: pubs})
	return nil
}
