//go:build !linux

package main

import "net"

// refuseHandshakes does nothing here: closing the listener resets the
// connections whose handshake the kernel has done but Accept has not
// taken (on Linux it first stops new handshakes).
func refuseHandshakes(net.Listener) {}
