//go:build !linux

package main

import (
	"errors"
	"net"
)

// refuseHandshakes does nothing here: closing the listener resets the
// connections whose handshake the kernel has done but Accept has not
// taken (on Linux it first stops new handshakes).
func refuseHandshakes(net.Listener) error { return errNoHandshakeFilter }

// handshakeFilter says that refuseHandshakes does not work here.
func handshakeFilter() error { return errNoHandshakeFilter }

var errNoHandshakeFilter = errors.New("no socket filter on this system")
