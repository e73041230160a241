package resilient_test

import "github.com/alertchat/alertchat/pkg/store"

// How a command reaches these methods of the stack: directly, every one is on store.Store.

func counter(s store.Store) store.Counter                           { return s }
func alertSearcher(s store.Store) store.AlertSearcher               { return s }
func investigationCounter(s store.Store) store.InvestigationCounter { return s }
