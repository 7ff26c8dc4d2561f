// Run on a file input (Runtime.callFunctionOn): sets files built from their bytes, as if the
// person picked them (person_files.rs).
function (files) {
  const dt = new DataTransfer();
  for (const f of files) {
    const raw = atob(f.data);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type }));
  }
  this.files = dt.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return this.files.length;
}
