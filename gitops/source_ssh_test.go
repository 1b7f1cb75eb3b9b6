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
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/test/gitserver"
)

// sshGitServer serves the bare repositories under root over SSH on 127.0.0.1 with the real
// git-upload-pack/git-receive-pack, for one authorized client key.
type sshGitServer struct {
	addr    string
	hostKey ssh.PublicKey
	logins  atomic.Int64
}

func newKey(t *testing.T) (ssh.Signer, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return signer, pem.EncodeToMemory(block)
}

func startSSHGitServer(t *testing.T, root string, client ssh.PublicKey) *sshGitServer {
	t.Helper()
	hostSigner, _ := newKey(t)
	s := &sshGitServer{hostKey: hostSigner.PublicKey()}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if string(key.Marshal()) == string(client.Marshal()) {
			s.logins.Add(1)
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(hostSigner)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	s.addr = l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, root)
		}
	}()
	return s
}

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, root string) {
	defer func() { _ = c.Close() }()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { _ = ch.Close() }()
			for req := range chReqs {
				if req.Type != "exec" {
					_ = req.Reply(req.Type == "env", nil)
					continue
				}
				command := string(req.Payload[4:])
				verb, arg, _ := strings.Cut(command, " ")
				if verb != "git-upload-pack" && verb != "git-receive-pack" {
					_ = req.Reply(false, nil)
					return
				}
				_ = req.Reply(true, nil)
				cmd := exec.Command(verb, filepath.Join(root, strings.Trim(arg, "'/")))
				cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
				status := uint32(0)
				if err := cmd.Run(); err != nil {
					status = 1
				}
				_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
				return
			}
		}()
	}
}

func TestSyncOverSSHWithKeyAndKnownHosts(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", baseRepo())
	clientSigner, clientPEM := newKey(t)
	sshSrv := startSSHGitServer(t, srv.Root(), clientSigner.PublicKey())
	url := "ssh://git@" + sshSrv.addr + "/config.git"
	knownHosts := []byte(knownhosts.Line([]string{knownhosts.Normalize(sshSrv.addr)}, sshSrv.hostKey) + "\n")

	res, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: url, Auth: &Auth{SSHPrivateKey: clientPEM, SSHKnownHosts: knownHosts}},
		WorkDir: t.TempDir(),
	})

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(srv.Log(t, "config", DefaultTargetBranch)[0].Trailer(TrailerSourceRevision)).To(Equal(res.SourceRevision))
	g.Expect(sshSrv.logins.Load()).To(BeNumerically(">=", 2), "fetch and push went over SSH")

	otherHost, _ := newKey(t)
	wrongHosts := []byte(knownhosts.Line([]string{knownhosts.Normalize(sshSrv.addr)}, otherHost.PublicKey()) + "\n")
	_, err = NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: url, Auth: &Auth{SSHPrivateKey: clientPEM, SSHKnownHosts: wrongHosts}},
		WorkDir: t.TempDir(),
	})
	g.Expect(err).To(MatchError(ContainSubstring("key mismatch")))
	g.Expect(IsPermanent(err)).To(BeTrue())
	g.Expect(err.Error()).NotTo(ContainSubstring("PRIVATE KEY"))

	_, otherPEM := newKey(t)
	_, err = NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: url, Auth: &Auth{SSHPrivateKey: otherPEM, SSHKnownHosts: knownHosts}},
		WorkDir: t.TempDir(),
	})
	g.Expect(err).To(MatchError(ContainSubstring("unable to authenticate")))
	g.Expect(IsPermanent(err)).To(BeTrue())
}

// startAgent serves an SSH agent holding the private key keyPEM on a Unix socket and returns the socket's path
// and how many connections it accepted.
func startAgent(t *testing.T, keyPEM []byte) (string, *atomic.Int64) {
	t.Helper()
	key, err := ssh.ParseRawPrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() { _ = agent.ServeAgent(keyring, c); _ = c.Close() }()
		}
	}()
	return sock, &accepted
}

// TestSyncOverSSHWithoutKeyNeverAsksTheAgent: an SSH source or target given no key fails with a permanent error
// that says a key is needed, although an SSH agent holding a key the server accepts and known hosts naming the
// server are at hand: siteops uses only the key it is given, and never connects.
func TestSyncOverSSHWithoutKeyNeverAsksTheAgent(t *testing.T) {
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", baseRepo())
	clientSigner, clientPEM := newKey(t)
	sshSrv := startSSHGitServer(t, srv.Root(), clientSigner.PublicKey())
	url := "ssh://git@" + sshSrv.addr + "/config.git"
	knownHosts := []byte(knownhosts.Line([]string{knownhosts.Normalize(sshSrv.addr)}, sshSrv.hostKey) + "\n")
	khFile := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(khFile, knownHosts, 0o600); err != nil {
		t.Fatal(err)
	}
	sock, agentConns := startAgent(t, clientPEM)
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("SSH_KNOWN_HOSTS", khFile)
	withKey := &Auth{SSHPrivateKey: clientPEM, SSHKnownHosts: knownHosts}

	for name, o := range map[string]SyncOptions{
		"source without a key": {Source: SourceSpec{URL: url}},
		"source with a password only": {Source: SourceSpec{URL: url,
			Auth: &Auth{Username: "git", Password: "not-a-key"}}},
		"target without a key": {Source: SourceSpec{URL: url, Auth: withKey}, Target: TargetSpec{URL: url}},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			logins := sshSrv.logins.Load()
			o.WorkDir = t.TempDir()

			_, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), o)

			g.Expect(err).To(HaveOccurred())
			g.Expect(errors.Is(err, source.ErrNoSSHKey)).To(BeTrue(), "got %v", err)
			g.Expect(IsPermanent(err)).To(BeTrue())
			g.Expect(err.Error()).To(ContainSubstring("needs a private key"))
			g.Expect(err.Error()).NotTo(ContainSubstring("SSH_AUTH_SOCK"))
			g.Expect(agentConns.Load()).To(BeZero(), "the SSH agent is never asked")
			if o.Source.Auth == nil || o.Source.Auth.SSHPrivateKey == nil {
				g.Expect(sshSrv.logins.Load()).To(Equal(logins), "no login without a key")
			}
		})
	}
	g := NewWithT(t)
	g.Expect(srv.Log(t, "config", DefaultTargetBranch)).To(BeEmpty(), "nothing was pushed")
}
