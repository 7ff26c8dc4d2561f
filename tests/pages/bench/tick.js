// One of fifty.html's scripts: counts itself.
window.ticks = (window.ticks || 0) + 1;
