// The CDP door's DOM.setFileInputFiles (files.rs), run on the file input (`this`, by
// Runtime.callFunctionOn): sets `files` ([{name, type, data: base64}], the agent's uploads) as a
// person's choice would, through a DataTransfer, and fires input and change as Chrome does.
function (files) {
  if (!(this instanceof HTMLInputElement) || this.type !== 'file') {
    throw new Error('Node is not a file input element');
  }
  const transfer = new DataTransfer();
  for (const file of files) {
    const bytes = Uint8Array.from(atob(file.data), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], file.name, { type: file.type }));
  }
  this.files = transfer.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
}
