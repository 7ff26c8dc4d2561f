# Drives a Porthole CDP door with real browser-use (its BrowserSession on `cdp_url`, the http
# form; no LLM: the session's own API), as an agent's browser-use would. Usage:
#   python browser-use-drive.py <door http url> <json args>
# args: { page: URL to open }. Prints one JSON line of what it saw; a failure prints
# { failed } and exits 1. Run from the venv scripts/setup/browser-use.sh makes.
import asyncio
import json
import sys

from browser_use import BrowserSession
from browser_use.browser.events import ClickElementEvent


async def main():
    url, args = sys.argv[1], json.loads(sys.argv[2])
    session = BrowserSession(cdp_url=url)
    await session.start()
    out = {'tabsAtStart': [tab.url for tab in await session.get_tabs()]}
    await session.navigate_to(args['page'])
    out['url'] = await session.get_current_page_url()
    state = await session.get_browser_state_summary()
    out['text'] = state.dom_state.llm_representation()
    button = await session.get_index_by_id('button')
    node = await session.get_element_by_index(button)
    await session.event_bus.dispatch(ClickElementEvent(node=node))
    page = await session.must_get_current_page()
    out['clicked'] = await page.evaluate("() => document.getElementById('result').textContent")
    out['tabs'] = [tab.url for tab in await session.get_tabs()]
    await session.stop()
    print(json.dumps(out))


try:
    asyncio.run(main())
except Exception as e:  # noqa: BLE001 - reported to the test, which shows it
    import traceback

    print(json.dumps({'failed': traceback.format_exc()}))
    sys.exit(1)
