package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// sink is the least of Discord's REST API that a bot on the HTTP
// interactions endpoint needs: who the bot is, command registration, and
// webhook edits and follow-ups, which it answers at once and forgets.
// Unlike discord/discordtest it keeps nothing, so the generator's memory
// stays flat over a long run.
type sink struct {
	scene
	url    string // the API base URL, for DISCORD_API_URL
	caFile string // with TLS: the certificate to trust, for SSL_CERT_FILE

	edits atomic.Uint64 // webhook edits and deletes taken
	conns atomic.Uint64 // TCP connections the bot opened

	srv *http.Server
}

// startSink serves the sink on loopback. With useTLS it serves HTTPS
// (HTTP/2, as discord.com does) with a certificate written to dir, which
// the bot must trust through SSL_CERT_FILE; without, plain HTTP/1.1.
func startSink(sc scene, useTLS bool, dir string) (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &sink{scene: sc, url: "http://" + ln.Addr().String() + "/api/v9"}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}}
	if !useTLS {
		go func() { _ = s.srv.Serve(ln) }()
		return s, nil
	}
	s.caFile = filepath.Join(dir, "sink-ca.pem")
	if s.srv.TLSConfig, err = selfSigned(s.caFile); err != nil {
		ln.Close()
		return nil, err
	}
	s.url = "https://" + ln.Addr().String() + "/api/v9"
	go func() { _ = s.srv.ServeTLS(ln, "", "") }()
	return s, nil
}

// selfSigned makes a certificate for 127.0.0.1, writes it, in PEM, to
// certFile, and returns a server configuration that serves it over HTTP/2
// and HTTP/1.1.
func selfSigned(certFile string) (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tttload REST sink"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}, nil
}

func (s *sink) close() { _ = s.srv.Close() }

// message is the message every edit and follow-up returns.
var message = []byte(`{"id":"1000000000000000001","channel_id":"1000000000000000002","type":0,"content":"","components":[],"embeds":[],"attachments":[],"flags":0,"author":{"id":"1","username":"tttbot","bot":true}}`)

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api/v9")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPatch && strings.HasPrefix(path, "/webhooks/"):
		s.edits.Add(1)
		_, _ = w.Write(message)
	case r.Method == http.MethodDelete && strings.HasPrefix(path, "/webhooks/"):
		s.edits.Add(1) // a board the next one replaced
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/webhooks/"):
		_, _ = w.Write(message)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/interactions/"):
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet && path == "/users/@me":
		_, _ = w.Write([]byte(`{"id":"` + s.botID + `","username":"tttbot","global_name":"tttbot","discriminator":"0","bot":true}`))
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/gateway"):
		_, _ = w.Write([]byte(`{"url":"ws://127.0.0.1:1","shards":1,"session_start_limit":{"total":1000,"remaining":1000,"reset_after":0,"max_concurrency":1}}`))
	case r.Method == http.MethodPut && strings.HasPrefix(path, "/applications/") && strings.HasSuffix(path, "/commands"):
		var cmds []map[string]any
		if err := json.Unmarshal(body, &cmds); err != nil {
			http.Error(w, `{"message":"Invalid Form Body","code":50035}`, http.StatusBadRequest)
			return
		}
		for _, c := range cmds {
			c["id"], c["application_id"], c["version"] = s.cmdID, s.appID, s.cmdID
			if strings.Contains(path, "/guilds/") {
				c["guild_id"] = s.guildID
			}
		}
		_ = json.NewEncoder(w).Encode(cmds)
	default:
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte(`{}`))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}
