package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// wireConn is one keep-alive HTTP/1.1 connection to the bot's endpoint,
// used by one channel at a time. net/http's client hands every request
// between three goroutines (the caller, a writer and a reader); the
// generator shares the bot's two cores, so it writes each request with one
// write and reads the answer on the channel's own goroutine. Only what the
// bot's endpoint sends is understood: a status line, headers, and a body
// with Content-Length or chunked.
type wireConn struct {
	addr    string        // host:port
	maxIdle time.Duration // a connection idle longer is dialled again; 0: defaultMaxIdle
	conn    net.Conn
	r       *bufio.Reader
	used    time.Time // when conn last answered
	req     []byte
}

// defaultMaxIdle is how long a connection may wait unused before the next post
// dials a new one: well under the 2 minutes after which the bot's server
// closes an idle connection, which a post would otherwise find closed.
const defaultMaxIdle = 30 * time.Second

// errWire is a response the client cannot read.
var errWire = errors.New("malformed HTTP response")

// post sends body with the signature headers to path and appends the
// response body to ans. Any error closes the connection; the next post
// dials again. The whole exchange must end within timeout.
func (w *wireConn) post(path string, p signed, timeout time.Duration, ans []byte) (status int, _ []byte, err error) {
	now := time.Now()
	deadline := now.Add(timeout)
	if w.conn != nil && now.Sub(w.used) > cmp.Or(w.maxIdle, defaultMaxIdle) {
		w.close()
	}
	if w.conn == nil {
		conn, err := net.DialTimeout("tcp", w.addr, timeout)
		if err != nil {
			return 0, ans, err
		}
		w.conn, w.r = conn, bufio.NewReaderSize(conn, 8<<10)
	}
	defer func() {
		if err != nil {
			w.close()
		} else {
			w.used = time.Now()
		}
	}()
	if err := w.conn.SetDeadline(deadline); err != nil {
		return 0, ans, err
	}
	w.req = append(w.req[:0], "POST "...)
	w.req = append(w.req, path...)
	w.req = append(w.req, " HTTP/1.1\r\nHost: "...)
	w.req = append(w.req, w.addr...)
	w.req = append(w.req, "\r\nContent-Type: application/json\r\nUser-Agent: Discord-Interactions/1.0 (+https://discord.com)\r\nX-Signature-Ed25519: "...)
	w.req = append(w.req, p.signature...)
	w.req = append(w.req, "\r\nX-Signature-Timestamp: "...)
	w.req = append(w.req, p.timestamp...)
	w.req = append(w.req, "\r\nContent-Length: "...)
	w.req = strconv.AppendInt(w.req, int64(len(p.body)), 10)
	w.req = append(w.req, "\r\n\r\n"...)
	w.req = append(w.req, p.body...)
	if _, err := w.conn.Write(w.req); err != nil {
		return 0, ans, err
	}
	return w.read(ans)
}

// read reads one response and appends its body to ans.
func (w *wireConn) read(ans []byte) (status int, _ []byte, err error) {
	line, err := w.r.ReadSlice('\n')
	if err != nil {
		return 0, ans, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, ans, fmt.Errorf("%w: status line %q", errWire, line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, ans, fmt.Errorf("%w: status line %q", errWire, line)
	}
	length, chunked, closing := -1, false, false
	for {
		line, err := w.r.ReadSlice('\n')
		if err != nil {
			return status, ans, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return status, ans, fmt.Errorf("%w: header %q", errWire, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return status, ans, fmt.Errorf("%w: Content-Length %q", errWire, value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case chunked:
		ans, err = w.readChunks(ans)
	case length >= 0:
		ans, err = readN(w.r, ans, length)
	default: // the body ends with the connection
		ans, err = readAll(ans, w.r)
		closing = true
	}
	if err == nil && closing {
		w.close()
	}
	return status, ans, err
}

// readChunks appends a chunked body to ans.
func (w *wireConn) readChunks(ans []byte) ([]byte, error) {
	for {
		line, err := w.r.ReadSlice('\n')
		if err != nil {
			return ans, err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 32)
		if err != nil || n < 0 {
			return ans, fmt.Errorf("%w: chunk size %q", errWire, line)
		}
		if n == 0 {
			break
		}
		if ans, err = readN(w.r, ans, int(n)); err != nil {
			return ans, err
		}
		if _, err := w.r.Discard(2); err != nil { // the chunk's CRLF
			return ans, err
		}
	}
	for { // trailers, up to the blank line
		line, err := w.r.ReadSlice('\n')
		if err != nil {
			return ans, err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return ans, nil
		}
	}
}

// readAll appends r's contents to buf.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readN appends exactly n bytes of r to buf.
func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	buf = append(buf, make([]byte, n)...) // grows buf without a temporary
	_, err := io.ReadFull(r, buf[len(buf)-n:])
	return buf, err
}

func (w *wireConn) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn, w.r = nil, nil
	}
}
