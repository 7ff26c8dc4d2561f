//! A generated family of complex pages (issue 21), deterministic from a seed: a nav list, a
//! menu bar, long text, a long table of rows with links, checkboxes and buttons, a form with
//! every control kind, an open and a closed dialog, hidden parts (`hidden`, `display:none`,
//! `visibility:hidden`, `aria-hidden`), an off-screen part, open shadow roots (declarative, one
//! nested in another), a srcdoc frame and a same-origin frame with a srcdoc frame inside it;
//! the long part is a list of links (even seeds) or a table (odd seeds).
//! The page server serves page `seed` at `/family/<seed>` and its frame at
//! `/family/<seed>/frame`. Each page comes with what a snapshot of it must hold: the name of
//! every actionable element (each must carry a ref) and the names it must not show (hidden).
//!
//! The bench (`porthole-bench peers`) compares bytes per page on seeds `0..BENCH_PAGES`; the
//! budget test uses seeds from [`TEST_SEEDS`], which the compaction was not tuned on.

use std::fmt::Write;

/// Pages the bench measures: seeds `0..BENCH_PAGES`.
pub const BENCH_PAGES: u64 = 8;
/// Seeds for tests: never measured by the bench, so never tuned on.
pub const TEST_SEEDS: [u64; 4] = [1_001, 7_919, 424_242, 31_338];

/// One generated page: its documents and what a snapshot of it must (not) hold.
#[derive(Debug, Clone)]
pub struct FamilyPage {
    pub seed: u64,
    /// The top document.
    pub html: String,
    /// The same-origin frame's document (`/family/<seed>/frame`).
    pub frame: String,
    /// The accessible name of every visible actionable element, in any frame or shadow root.
    pub actionable: Vec<String>,
    /// Names of actionable elements in hidden parts: a snapshot must not list them.
    pub hidden: Vec<String>,
    /// Values and placeholders shown in form controls (they belong in a snapshot too).
    pub values: Vec<String>,
}

impl FamilyPage {
    /// Bytes of what a snapshot has to say: names and values.
    pub fn content_bytes(&self) -> usize {
        self.actionable.iter().map(String::len).sum::<usize>()
            + self.values.iter().map(String::len).sum::<usize>()
    }
}

/// splitmix64: small, fast, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.range(0, from.len() - 1)]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const ADJECTIVES: &[&str] = &[
    "amber", "brisk", "cedar", "dusky", "eager", "fuzzy", "gilded", "hollow", "ivory", "jolly",
    "keen", "lunar", "mossy", "nimble", "olive", "plush", "quiet", "rustic", "sable", "tidal",
];
const NOUNS: &[&str] = &[
    "kettle", "lantern", "satchel", "teapot", "blanket", "compass", "ladder", "mirror", "pillow",
    "basket", "candle", "drawer", "easel", "funnel", "goblet", "hammock", "inkwell", "jigsaw",
];
const SECTIONS: &[&str] = &[
    "Home", "Shop", "Deals", "Journal", "Support", "Account", "Stores", "Gifts", "Returns",
    "Careers", "Press", "Events",
];
const VERBS: &[&str] = &[
    "Save",
    "Share",
    "Print",
    "Export",
    "Archive",
    "Compare",
    "Refresh",
    "Duplicate",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "for",
    "with",
    "our",
    "each",
    "every",
    "season",
    "order",
    "delivery",
    "returns",
    "made",
    "by",
    "hand",
    "small",
    "workshops",
    "across",
    "valley",
    "wool",
    "oak",
    "glass",
    "quality",
    "care",
    "guide",
    "warranty",
    "packed",
    "shipped",
];

/// Generated content with the names it carries.
#[derive(Default)]
struct Out {
    actionable: Vec<String>,
    hidden: Vec<String>,
    values: Vec<String>,
}

impl Out {
    fn act(&mut self, name: String) -> String {
        self.actionable.push(name.clone());
        name
    }
}

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str() + ".",
        None => s,
    }
}

fn item(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(ADJECTIVES), rng.pick(NOUNS))
}

/// Escapes `"` and `&` for an attribute (srcdoc holds a whole document).
fn attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;")
}

/// Page `seed` of the family.
pub fn page(seed: u64) -> FamilyPage {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x5EED);
    let mut o = Out::default();
    let title = format!("{} {} catalogue", rng.pick(ADJECTIVES), rng.pick(NOUNS));
    let h = &mut String::new();
    let _ = write!(
        h,
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <style>body{{font:14px sans-serif;margin:8px}} iframe{{width:420px;height:160px}} \
         .far{{position:absolute;left:-5000px}}</style></head><body>"
    );
    // Header: nav list and a menu bar.
    h.push_str("<header><nav aria-label=\"Site\"><ul>");
    for i in 0..rng.range(4, 9) {
        let name = o.act(format!("{} {}", SECTIONS[i % SECTIONS.len()], i + 1));
        let _ = write!(h, "<li><a href=\"/s/{i}\">{name}</a></li>");
    }
    h.push_str("</ul></nav><div role=\"menubar\" aria-label=\"Tools\">");
    for i in 0..rng.range(3, 6) {
        let name = o.act(format!("{} view {}", VERBS[i % VERBS.len()], i + 1));
        let _ = write!(h, "<div role=\"menuitem\" tabindex=\"0\">{name}</div>");
    }
    h.push_str("</div></header>");
    // An off-screen skip link (focusable, positioned far left).
    let skip = o.act(format!("Skip to {} content", rng.pick(ADJECTIVES)));
    let _ = write!(h, "<a class=\"far\" href=\"#main\">{skip}</a>");
    h.push_str("<main id=\"main\">");
    let _ = write!(h, "<h1>{title}</h1>");
    // Long text.
    for _ in 0..rng.range(2, 5) {
        let n = rng.range(30, 90);
        let _ = write!(h, "<p>{}</p>", words(&mut rng, n));
    }
    // An open dialog and a closed one.
    let open_dialog = rng.chance(70);
    if open_dialog {
        let ok = o.act(format!("Accept {} terms", rng.pick(ADJECTIVES)));
        let no = o.act(format!("Decline {} terms", rng.pick(ADJECTIVES)));
        let _ = write!(
            h,
            "<dialog open aria-label=\"Cookie notice\"><p>{}</p><button>{ok}</button> \
             <button>{no}</button></dialog>",
            words(&mut rng, 12)
        );
    }
    let closed = format!("Closed dialog {}", rng.pick(NOUNS));
    o.hidden.push(closed.clone());
    let _ = write!(h, "<dialog><button>{closed}</button></dialog>");
    // Hidden parts.
    let hidden_kinds = [
        "hidden",
        "style=\"display:none\"",
        "style=\"visibility:hidden\"",
        "aria-hidden=\"true\"",
    ];
    for (i, kind) in hidden_kinds.iter().enumerate() {
        let name = format!("Hidden {} {i}", rng.pick(NOUNS));
        o.hidden.push(name.clone());
        let _ = write!(h, "<div {kind}><button>{name}</button></div>");
    }
    // The form with every control kind.
    form(&mut rng, &mut o, h);
    // Shadow roots: a widget with a nested one.
    shadow(&mut rng, &mut o, h);
    // Frames: srcdoc, and same-origin with a srcdoc frame inside.
    let srcdoc = frame_doc(&mut rng, &mut o, "Quick note", false);
    let _ = write!(
        h,
        "<iframe title=\"Quick note\" srcdoc=\"{}\"></iframe>",
        attr(&srcdoc)
    );
    let frame = frame_doc(&mut rng, &mut o, "Newsletter", true);
    let _ = write!(
        h,
        "<iframe title=\"Newsletter\" src=\"/family/{seed}/frame\"></iframe>"
    );
    // The long catalogue: a list of links on even seeds (like tests/pages/complex.html), a
    // table on odd ones.
    if seed.is_multiple_of(2) {
        list(&mut rng, &mut o, h);
    } else {
        table(&mut rng, &mut o, h);
    }
    h.push_str("</main><footer>");
    for i in 0..rng.range(2, 5) {
        let name = o.act(format!("{} policy {}", rng.pick(ADJECTIVES), i + 1));
        let _ = write!(h, "<a href=\"/p/{i}\">{name}</a> ");
    }
    h.push_str("</footer></body></html>");
    FamilyPage {
        seed,
        html: std::mem::take(h),
        frame,
        actionable: o.actionable,
        hidden: o.hidden,
        values: o.values,
    }
}

/// A form with a text, email, password, number, range, date, colour and search field, a
/// checkbox pair, a radio group, a select, a multi-select, a textarea, a file input, a
/// contenteditable box, a disabled field and submit/reset/plain buttons.
fn form(rng: &mut Rng, o: &mut Out, h: &mut String) {
    let label = format!("{} order", rng.pick(ADJECTIVES));
    let _ = write!(
        h,
        "<form aria-label=\"{label}\" onsubmit=\"return false\"><h2>{label}</h2>"
    );
    let fields = [
        ("text", "Full name"),
        ("email", "Email"),
        ("password", "Password"),
        ("number", "Quantity"),
        ("range", "Volume"),
        ("date", "Delivery date"),
        ("color", "Wrap colour"),
        ("search", "Find in order"),
        ("tel", "Phone"),
    ];
    for (i, (kind, base)) in fields.iter().enumerate() {
        let name = o.act(format!("{base} {}", rng.range(1, 99)));
        let value = match *kind {
            "text" if rng.chance(50) => Some(item(rng)),
            "password" => Some("hunter2".to_string()),
            "number" => Some(rng.range(1, 20).to_string()),
            "range" => Some(rng.range(0, 100).to_string()),
            _ => None,
        };
        let placeholder = (*kind == "email" || *kind == "search").then(|| words(rng, 2));
        let _ = write!(
            h,
            "<label for=\"f{i}\">{name}</label> <input id=\"f{i}\" type=\"{kind}\""
        );
        if let Some(v) = &value {
            let _ = write!(h, " value=\"{v}\"");
            if *kind != "password" {
                o.values.push(v.clone());
            }
        }
        if let Some(p) = &placeholder {
            let _ = write!(h, " placeholder=\"{p}\"");
            o.values.push(p.clone());
        }
        h.push_str("><br>");
    }
    for i in 0..2 {
        let name = o.act(format!("Gift wrap {} {i}", rng.pick(NOUNS)));
        let checked = if rng.chance(50) { " checked" } else { "" };
        let _ = write!(
            h,
            "<label><input type=\"checkbox\"{checked}> {name}</label> "
        );
    }
    let _ = write!(h, "<fieldset><legend>Speed</legend>");
    let chosen = rng.range(0, 2);
    for (i, speed) in ["Standard", "Express", "Overnight"].iter().enumerate() {
        let name = o.act(format!("{speed} shipping"));
        let checked = if i == chosen { " checked" } else { "" };
        let _ = write!(
            h,
            "<label><input type=\"radio\" name=\"speed\"{checked}> {name}</label> "
        );
    }
    h.push_str("</fieldset>");
    let select = o.act(format!("Size {}", rng.range(1, 9)));
    let _ = write!(h, "<label for=\"sz\">{select}</label> <select id=\"sz\">");
    let sizes = ["Small", "Medium", "Large", "Huge"];
    let picked = rng.range(0, sizes.len() - 1);
    for (i, s) in sizes.iter().enumerate() {
        let sel = if i == picked { " selected" } else { "" };
        let _ = write!(h, "<option{sel}>{s}</option>");
    }
    o.values.push(sizes[picked].to_string());
    h.push_str("</select><br>");
    let multi = o.act(format!("Extras {}", rng.range(1, 9)));
    let _ = write!(
        h,
        "<label for=\"ex\">{multi}</label> <select id=\"ex\" multiple size=\"3\">"
    );
    for (i, extra) in ["Card", "Ribbon", "Bag"].iter().enumerate() {
        let name = o.act(format!("{extra} extra"));
        let sel = if i == 1 { " selected" } else { "" };
        let _ = write!(h, "<option{sel}>{name}</option>");
    }
    h.push_str("</select><br>");
    let notes = o.act(format!("Notes {}", rng.range(1, 9)));
    let text = words(rng, 5);
    o.values.push(text.clone());
    let _ = write!(
        h,
        "<label for=\"nt\">{notes}</label> <textarea id=\"nt\">{text}</textarea><br>"
    );
    let file = o.act(format!("Receipt {}", rng.range(1, 9)));
    let _ = write!(
        h,
        "<label for=\"fl\">{file}</label> <input id=\"fl\" type=\"file\"><br>"
    );
    let rich = o.act(format!("Message {}", rng.range(1, 9)));
    let _ = write!(
        h,
        "<div contenteditable=\"true\" aria-label=\"{rich}\"></div>"
    );
    let off = o.act(format!("Coupon {}", rng.range(1, 9)));
    let _ = write!(
        h,
        "<label for=\"cp\">{off}</label> <input id=\"cp\" disabled value=\"N/A\"><br>"
    );
    o.values.push("N/A".to_string());
    let submit = o.act(format!("Place {} order", rng.pick(ADJECTIVES)));
    let reset = o.act("Clear form".to_string());
    let plain = o.act(format!("{} later", rng.pick(VERBS)));
    let _ = write!(
        h,
        "<input type=\"submit\" value=\"{submit}\"> <input type=\"reset\" value=\"{reset}\"> \
         <button type=\"button\">{plain}</button></form>"
    );
}

/// A custom element with an open (declarative) shadow root holding a heading, a button and a
/// field, and a second element nested in that root with its own.
fn shadow(rng: &mut Rng, o: &mut Out, h: &mut String) {
    let button = o.act(format!("Checkout {}", rng.pick(NOUNS)));
    let link = o.act(format!("View {} cart", rng.pick(ADJECTIVES)));
    let field = o.act(format!("Promo code {}", rng.range(1, 99)));
    let inner = o.act(format!("Apply {} voucher", rng.pick(ADJECTIVES)));
    let _ = write!(
        h,
        "<shop-cart><template shadowrootmode=\"open\"><h2>Cart</h2>\
         <p>Cart total: {} items</p><button>{button}</button> <a href=\"/cart\">{link}</a> \
         <label>{field} <input></label>\
         <cart-voucher><template shadowrootmode=\"open\"><button>{inner}</button>\
         </template></cart-voucher></template></shop-cart>",
        rng.range(0, 9)
    );
}

/// A frame's document: a heading, a field and a button; `nested` adds a srcdoc frame inside.
fn frame_doc(rng: &mut Rng, o: &mut Out, what: &str, nested: bool) -> String {
    let field = o.act(format!("{what} email {}", rng.range(1, 99)));
    let button = o.act(format!("{what} {}", rng.pick(VERBS)));
    let mut d = format!(
        "<!doctype html><html><body><h3>{what}</h3><label>{field} <input></label> \
         <button>{button}</button>"
    );
    if nested {
        let inner = o.act(format!("Nested {} link", rng.pick(NOUNS)));
        let doc = format!("<!doctype html><body><a href=\"/n\">{inner}</a></body>");
        let _ = write!(
            d,
            "<iframe title=\"Inner\" style=\"width:300px;height:60px\" srcdoc=\"{}\"></iframe>",
            attr(&doc)
        );
    }
    d.push_str("</body></html>");
    d
}

/// A list of 20 to 120 items, each a link and a stock note, on some pages with a button.
fn list(rng: &mut Rng, o: &mut Out, h: &mut String) {
    let rows = rng.range(20, 120);
    let buttons = rng.chance(50);
    h.push_str("<h2>Products</h2><ul>");
    for i in 1..=rows {
        let link = o.act(format!("Product {i}: {}", item(rng)));
        let stock = if rng.chance(80) {
            "In stock"
        } else {
            "Sold out"
        };
        let _ = write!(
            h,
            "<li><a href=\"/products/{i}\">{link}</a> <span>{stock}</span>"
        );
        if buttons && rng.chance(40) {
            let add = o.act(format!("Add {i}"));
            let _ = write!(h, " <button>{add}</button>");
        }
        h.push_str("</li>");
    }
    h.push_str("</ul>");
}

/// A table of 20 to 120 rows: a name, a price, a link, a checkbox and sometimes a button.
fn table(rng: &mut Rng, o: &mut Out, h: &mut String) {
    let rows = rng.range(20, 120);
    h.push_str(
        "<table><thead><tr><th>Item</th><th>Price</th><th>Details</th><th>Pick</th>\
         <th></th></tr></thead><tbody>",
    );
    for i in 1..=rows {
        let what = item(rng);
        let link = o.act(format!("Item {i}: {what}"));
        let pick = o.act(format!("Pick {i}"));
        let _ = write!(
            h,
            "<tr><td>{}</td><td>${}.{:02}</td><td><a href=\"/i/{i}\">{link}</a></td>\
             <td><input type=\"checkbox\" aria-label=\"{pick}\"{}></td><td>",
            what,
            rng.range(1, 400),
            rng.range(0, 99),
            if rng.chance(20) { " checked" } else { "" }
        );
        if rng.chance(30) {
            let remove = o.act(format!("Remove {i}"));
            let _ = write!(h, "<button>{remove}</button>");
        }
        h.push_str("</td></tr>");
    }
    h.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::page;

    #[test]
    fn pages_are_deterministic_and_differ_by_seed() {
        assert_eq!(page(3).html, page(3).html);
        assert_ne!(page(3).html, page(4).html);
        // The content itself follows the seed, not only the frame's address.
        assert_ne!(page(2).actionable, page(4).actionable);
        assert!(page(2).actionable.iter().any(|n| n.starts_with("Product ")));
        assert!(page(3).actionable.iter().any(|n| n.starts_with("Pick ")));
        let p = page(5);
        assert!(p.actionable.len() > 40, "{}", p.actionable.len());
        assert!(p.hidden.len() >= 5);
        assert!(p.html.contains("shadowrootmode") && p.html.contains("srcdoc"));
    }
}
