package main

import (
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
// header on; on failure nothing changes.
func refuseHandshakes(ln net.Listener) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return
	}
	const flags, ack, syn = 13, 0x10, 0x02 // the TCP header's flags byte, and two of its bits
	_ = rc.Control(func(fd uintptr) {
		_ = syscall.AttachLsf(int(fd), []syscall.SockFilter{
			{Code: syscall.BPF_LD | syscall.BPF_B | syscall.BPF_ABS, K: flags},
			{Code: syscall.BPF_JMP | syscall.BPF_JSET | syscall.BPF_K, K: ack, Jt: 2}, // an ACK: keep
			{Code: syscall.BPF_JMP | syscall.BPF_JSET | syscall.BPF_K, K: syn, Jf: 1}, // not a SYN: keep
			{Code: syscall.BPF_RET | syscall.BPF_K, K: 0},                             // drop
			{Code: syscall.BPF_RET | syscall.BPF_K, K: 0xFFFFFFFF},                    // keep it all
		})
	})
}
