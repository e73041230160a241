package store_test

import (
	"testing"

	"github.com/alertchat/alertchat/pkg/store"
)

type base struct{ store.Store }

func (base) Checked() bool { return true }

type layer struct{ store.Store }

func (l layer) Unwrap() store.Store { return l.Store }

type checked interface{ Checked() bool }

func TestFind(t *testing.T) {
	t.Parallel()
	stack := layer{layer{base{}}}
	if c, ok := store.Find[checked](stack); !ok || !c.Checked() {
		t.Fatal("Find does not reach the innermost layer's capability")
	}
	if _, ok := store.Find[store.Checker](stack); ok {
		t.Fatal("Find found a capability no layer has")
	}
	if _, ok := store.Find[checked](nil); ok {
		t.Fatal("Find on nil")
	}
}
