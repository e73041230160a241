package history

// ListRun lets the external tests list through a store stack they build themselves.
var ListRun = listRun
