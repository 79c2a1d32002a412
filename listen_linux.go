package main

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// refuseHandshakes makes the kernel drop the connection requests that
// reach ln from now on (segments with SYN and without ACK), so that its
// queue of connections whose handshake is done only shrinks: once Accept
// has taken them all, ln can be closed without resetting one whose
// request is on its way. A handshake under way when it is called still
// completes (its ACK passes). A client whose SYN is dropped sends it
// again, and then finds the port closed. It attaches a classic BPF
// program (SO_ATTACH_FILTER), which sees each segment from its TCP
// header on; on failure (some kernels refuse it without CAP_NET_ADMIN:
// EPERM) nothing changes, and it returns why.
func refuseHandshakes(ln net.Listener) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return errors.New("not a TCP listener")
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return err
	}
	const flags, ack, syn = 13, 0x10, 0x02 // the TCP header's flags byte, and two of its bits
	var aerr error
	err = rc.Control(func(fd uintptr) {
		aerr = attachFilter(int(fd), []syscall.SockFilter{
			{Code: syscall.BPF_LD | syscall.BPF_B | syscall.BPF_ABS, K: flags},
			{Code: syscall.BPF_JMP | syscall.BPF_JSET | syscall.BPF_K, K: ack, Jt: 2}, // an ACK: keep
			{Code: syscall.BPF_JMP | syscall.BPF_JSET | syscall.BPF_K, K: syn, Jf: 1}, // not a SYN: keep
			{Code: syscall.BPF_RET | syscall.BPF_K, K: 0},                             // drop
			{Code: syscall.BPF_RET | syscall.BPF_K, K: 0xFFFFFFFF},                    // keep it all
		})
	})
	if err != nil {
		return err
	}
	return aerr
}

// attachFilter attaches a socket filter (a test's may fail).
var attachFilter = syscall.AttachLsf

// handshakeFilter says whether refuseHandshakes works here: it attaches
// the filter to a listener of its own on loopback, which it closes.
func handshakeFilter() error {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	return refuseHandshakes(ln)
}
