// Run on a file input (Runtime.callFunctionOn): fires `cancel`, as a dismissed chooser does.
function() { this.dispatchEvent(new Event('cancel', {bubbles: true})); }
