// A new tab's URL and load state (waits.rs).
({url: location.href, state: document.readyState})
