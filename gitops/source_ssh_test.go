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
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

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
