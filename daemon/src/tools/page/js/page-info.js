// What `page_info` tells of the document (page.rs).
({url: location.href, title: document.title, state: document.readyState,
  scrollX: Math.round(scrollX), scrollY: Math.round(scrollY),
  height: document.documentElement ? document.documentElement.scrollHeight : 0})
