// A browser for the conformance suite's authorization server, which approves at once: it
// follows the redirects from the authorization URL to alertchat's loopback redirect.
const res = await fetch(process.argv[2], { redirect: 'follow' });
await res.text();
