package store

import "testing"

func TestMemory(t *testing.T) {
	runContract(t, func(t *testing.T) storeUnderTest { return new(Memory) })
}
