// The document's own URL and title (driver.rs `Tab::location`).
({url: location.href, title: document.title})
