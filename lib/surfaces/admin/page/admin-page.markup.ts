/**
 * The admin page's body. Every value the script shows goes in through `textContent`, never as
 * markup, so nothing a message or an error carries can run in the page.
 */
export const ADMIN_PAGE_BODY = `
<header>
  <h1>QueueBox admin</h1>
  <label for="token">Bearer token</label>
  <input id="token" type="password" autocomplete="off" spellcheck="false" placeholder="not needed with a session guard">
  <button id="connect" class="primary" type="button">Connect</button>
  <button id="refresh" type="button">Refresh</button>
  <span id="status" role="status">Not connected</span>
</header>
<main>
  <section>
    <h2>Loops</h2>
    <table><thead><tr><th>Loop</th><th>State</th><th class="num">Last tick</th><th class="num">In flight / limit</th><th class="num">Errors</th><th>Last error</th></tr></thead><tbody id="loops"></tbody></table>
  </section>
  <section>
    <h2>Backlog</h2>
    <table><thead><tr><th>Table</th><th>Destination / source</th><th class="num">Pending</th><th class="num">Oldest</th></tr></thead><tbody id="backlog"></tbody></table>
  </section>
  <section>
    <h2>Blocked keys</h2>
    <table><thead><tr><th>Table</th><th>Stream</th><th>Key</th><th>Head</th><th>Reason</th><th class="num">Waiting</th><th>Last error</th></tr></thead><tbody id="blocked"></tbody></table>
  </section>
  <section>
    <h2>Claims at risk</h2>
    <table><thead><tr><th>Table</th><th>Row</th><th>Stream</th><th>Key</th><th class="num">Lease ends in</th></tr></thead><tbody id="expiring"></tbody></table>
    <h3>Lost recently on this replica</h3>
    <table><tbody id="lost"></tbody></table>
  </section>
  <section class="wide">
    <h2>Dead letters</h2>
    <div class="tabs"><button type="button" data-table="outbox" aria-pressed="true">Outbox</button> <button type="button" data-table="inbox" aria-pressed="false">Inbox</button></div>
    <form class="filter" id="filter">
      <label><span id="stream-label">Destination</span><input name="stream" autocomplete="off"></label>
      <label>Error contains<input name="errorContains" autocomplete="off"></label>
      <label>Dead since<input name="deadSince" type="datetime-local"></label>
      <label>Dead before<input name="deadBefore" type="datetime-local"></label>
      <button type="submit">Apply filter</button>
    </form>
    <table><thead><tr><th><input type="checkbox" id="select-all" aria-label="Select all"></th><th>Id</th><th id="stream-head">Destination</th><th>Key</th><th class="num">Attempts</th><th>Last error</th><th>Died</th><th></th></tr></thead><tbody id="dead"></tbody></table>
    <div class="actions">
      <button id="replay-selected" class="primary" type="button">Replay selected</button>
      <button id="discard-selected" class="danger" type="button">Discard selected</button>
      <button id="replay-matching" type="button">Replay all matching the filter</button>
      <button id="discard-matching" type="button">Discard all matching the filter</button>
      <button id="next-page" type="button">Next page</button>
    </div>
    <p id="message" role="alert"></p>
    <div id="detail" hidden><h3>Dead letter <span id="detail-id"></span></h3><pre id="detail-text"></pre><button id="show-payload" type="button">Show payload</button></div>
  </section>
  <section class="wide">
    <h2>Replayed from this page</h2>
    <table><thead><tr><th>Table</th><th>Row</th><th>State</th><th class="num">Attempts</th></tr></thead><tbody id="replayed"></tbody></table>
  </section>
</main>
<div id="confirm" hidden role="dialog" aria-modal="true" aria-labelledby="confirm-text"><div><p id="confirm-text"></p><div class="actions"><button id="confirm-yes" class="danger" type="button">Confirm</button><button id="confirm-no" type="button">Cancel</button></div></div></div>
`;
