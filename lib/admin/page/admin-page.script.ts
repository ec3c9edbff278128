/**
 * The admin page's script: plain browser JavaScript, no build step. The bearer token lives in a
 * variable of this script only: never in the URL, a cookie or storage. Every value is written
 * with `textContent`. Mutations ask for confirmation first, and go as JSON with the header
 * `X-QueueBox-Admin: 1`, which the API requires of them.
 */
export const ADMIN_PAGE_SCRIPT = `
'use strict';
(function () {
  var api = location.pathname.replace(/\\/+$/, '') + '/api/';
  var token = '';
  var table = 'outbox';
  var filter = {};
  var after = null;
  var next = null;
  var replayed = [];
  var timer = null;
  var $ = function (id) { return document.getElementById(id); };

  function request(path, options) {
    options = options || {};
    var headers = { accept: 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    // A replay or discard goes as JSON with the admin header, which no HTML form can send.
    if (options.body) {
      headers['content-type'] = 'application/json';
      headers['x-queuebox-admin'] = '1';
    }
    return fetch(api + path, { method: options.method || 'GET', headers: headers, body: options.body ? JSON.stringify(options.body) : undefined, credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (!response.ok) {
            var error = new Error((body.field ? body.field + ': ' : '') + (body.message || ('HTTP ' + response.status)));
            error.status = response.status;
            throw error;
          }
          return body;
        });
      });
  }

  function status(text, bad) {
    $('status').textContent = text;
    $('status').className = bad ? 'bad' : '';
  }
  function message(text, bad) {
    $('message').textContent = text || '';
    $('message').className = bad ? 'bad' : '';
  }
  function cell(row, text, className) {
    var td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '' : String(text);
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }
  function fill(id, items, render, emptyText, columns) {
    var body = $(id);
    body.textContent = '';
    if (items.length === 0) {
      var row = body.insertRow();
      var td = cell(row, emptyText, 'empty');
      td.colSpan = columns;
      return;
    }
    items.forEach(function (item) { render(body.insertRow(), item); });
  }
  function age(ms) {
    if (ms === null || ms === undefined) return 'never';
    var s = Math.round(ms / 1000);
    if (s < 120) return s + ' s';
    if (s < 7200) return Math.round(s / 60) + ' min';
    return Math.round(s / 3600) + ' h';
  }
  function time(iso) { return iso ? new Date(iso).toLocaleString() : ''; }

  function loadReports() {
    return Promise.all([request('loops'), request('backlog'), request('blocked-keys?limit=50'), request('claims-at-risk?limit=50')]).then(function (results) {
      var loops = results[0];
      fill('loops', loops.loops, function (row, loop) {
        cell(row, loop.name);
        cell(row, loops.workersEnabled ? loop.state : 'workers disabled', 'state-' + loop.state);
        cell(row, age(loop.lastTickAgeMs), 'num');
        cell(row, loop.concurrency === null || loop.concurrency === undefined ? loop.inFlight : loop.inFlight + ' / ' + loop.concurrency, 'num');
        cell(row, loop.consecutiveErrors, 'num');
        cell(row, loop.lastError, 'error');
      }, 'No loops', 6);
      var backlog = results[1].outbox.map(function (e) { return ['outbox', e]; }).concat(results[1].inbox.map(function (e) { return ['inbox', e]; }));
      fill('backlog', backlog, function (row, pair) {
        cell(row, pair[0]);
        cell(row, pair[1].name);
        cell(row, pair[1].pending, 'num');
        cell(row, age(pair[1].oldestAgeSeconds * 1000), 'num');
      }, 'Nothing pending', 4);
      fill('blocked', results[2].items, function (row, key) {
        cell(row, key.table);
        cell(row, key.stream);
        cell(row, key.key);
        cell(row, key.id);
        cell(row, key.reason, 'state-' + key.reason);
        cell(row, key.waiting, 'num');
        cell(row, key.lastError, 'error');
      }, 'No blocked keys', 7);
      fill('expiring', results[3].expiring, function (row, claim) {
        cell(row, claim.table);
        cell(row, claim.id);
        cell(row, claim.stream);
        cell(row, claim.key);
        cell(row, age(claim.expiresInMs), 'num');
      }, 'No lease about to end', 5);
      fill('lost', results[3].lost, function (row, lost) {
        cell(row, lost.loop);
        cell(row, 'row ' + lost.id);
        cell(row, lost.during);
        cell(row, time(lost.at));
      }, 'None', 4);
    });
  }

  function deadQuery() {
    var parts = ['limit=50'];
    Object.keys(filter).forEach(function (name) { parts.push(encodeURIComponent(name) + '=' + encodeURIComponent(filter[name])); });
    if (after) parts.push('after=' + encodeURIComponent(after));
    return parts.join('&');
  }

  function loadDead() {
    return request('dead/' + table + '?' + deadQuery()).then(function (page) {
      next = page.next || null;
      $('next-page').disabled = !next;
      $('select-all').checked = false;
      fill('dead', page.items, function (row, dead) {
        var box = document.createElement('input');
        box.type = 'checkbox';
        box.value = dead.id;
        box.setAttribute('aria-label', 'Select ' + dead.id);
        row.insertCell().appendChild(box);
        cell(row, dead.id);
        cell(row, table === 'outbox' ? dead.destination : dead.source);
        cell(row, dead.key);
        cell(row, dead.attempts, 'num');
        cell(row, dead.lastError, 'error');
        cell(row, time(dead.finishedAt));
        var inspect = document.createElement('button');
        inspect.type = 'button';
        inspect.textContent = 'Inspect';
        inspect.addEventListener('click', function () { showDetail(dead.id, false); });
        row.insertCell().appendChild(inspect);
      }, 'No dead letters', 8);
    });
  }

  function showDetail(id, payload) {
    request('dead/' + table + '/' + encodeURIComponent(id) + (payload ? '?payload=true' : '')).then(function (detail) {
      $('detail').hidden = false;
      $('detail-id').textContent = id;
      $('detail-text').textContent = JSON.stringify(detail, null, 2);
      $('show-payload').hidden = payload;
      $('show-payload').onclick = function () { showDetail(id, true); };
    }, failed);
  }

  function loadReplayed() {
    var byTable = { outbox: [], inbox: [] };
    replayed.forEach(function (entry) { if (!entry.final) byTable[entry.table].push(entry.id); });
    return Promise.all(['outbox', 'inbox'].filter(function (t) { return byTable[t].length > 0; }).map(function (t) {
      return request('rows/' + t + '?ids=' + byTable[t].slice(0, 1000).join(',')).then(function (answer) {
        answer.items.forEach(function (row) {
          replayed.forEach(function (entry) {
            if (entry.table === t && entry.id === row.id) {
              entry.state = row.state;
              entry.attempts = row.attempts;
              entry.final = row.state === 'sent' || row.state === 'processed' || row.state === 'dead';
            }
          });
        });
      });
    })).then(function () {
      fill('replayed', replayed.slice(-200).reverse(), function (row, entry) {
        cell(row, entry.table);
        cell(row, entry.id);
        cell(row, entry.state === 'sent' || entry.state === 'processed' ? entry.state + ' (delivered)' : entry.state, 'state-' + entry.state);
        cell(row, entry.attempts, 'num');
      }, 'Nothing replayed yet', 4);
    });
  }

  function refresh() {
    return Promise.all([loadReports(), loadDead(), loadReplayed()]).then(function () {
      status('Connected; updated ' + new Date().toLocaleTimeString());
    }, failed);
  }

  function failed(error) {
    if (error.status === 401) status('The bearer token is missing or wrong', true);
    else if (error.status === 403) status('Not allowed', true);
    else message(error.message, true);
  }

  function confirmThen(text, action) {
    $('confirm-text').textContent = text;
    $('confirm').hidden = false;
    $('confirm-yes').focus();
    $('confirm-yes').onclick = function () { $('confirm').hidden = true; action(); };
    $('confirm-no').onclick = function () { $('confirm').hidden = true; };
  }

  function selectedIds() {
    return Array.prototype.map.call(document.querySelectorAll('#dead input[type=checkbox]:checked'), function (box) { return box.value; });
  }

  function mutate(action, selection, describe) {
    confirmThen(describe, function () {
      request('dead/' + table + '/' + action, { method: 'POST', body: selection }).then(function (result) {
        message((action === 'replay' ? 'Replayed ' : 'Discarded ') + result.count + ' ' + table + ' dead letter' + (result.count === 1 ? '' : 's') + '.');
        if (action === 'replay' && result.ids) {
          result.ids.forEach(function (id) { replayed.push({ table: table, id: id, state: 'pending', attempts: 0, final: false }); });
        }
        return refresh();
      }, failed);
    });
  }

  function filterText() {
    var names = Object.keys(filter);
    return names.length === 0 ? 'every ' + table + ' dead letter' : table + ' dead letters matching ' + names.map(function (n) { return n + ' = ' + filter[n]; }).join(', ');
  }

  $('connect').addEventListener('click', function () {
    token = $('token').value.trim();
    $('token').value = '';
    status('Connecting...');
    refresh();
    if (timer) clearInterval(timer);
    timer = setInterval(refresh, 5000);
  });
  $('token').addEventListener('keydown', function (event) { if (event.key === 'Enter') $('connect').click(); });
  $('refresh').addEventListener('click', refresh);
  Array.prototype.forEach.call(document.querySelectorAll('.tabs button'), function (button) {
    button.addEventListener('click', function () {
      table = button.getAttribute('data-table');
      Array.prototype.forEach.call(document.querySelectorAll('.tabs button'), function (b) { b.setAttribute('aria-pressed', String(b === button)); });
      $('stream-label').textContent = table === 'outbox' ? 'Destination' : 'Source';
      $('stream-head').textContent = table === 'outbox' ? 'Destination' : 'Source';
      filter = {};
      after = null;
      $('filter').reset();
      $('detail').hidden = true;
      loadDead().catch(failed);
    });
  });
  $('filter').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = new FormData($('filter'));
    filter = {};
    var stream = String(form.get('stream') || '').trim();
    if (stream) filter[table === 'outbox' ? 'destination' : 'source'] = stream;
    var errorContains = String(form.get('errorContains') || '').trim();
    if (errorContains) filter.errorContains = errorContains;
    ['deadSince', 'deadBefore'].forEach(function (name) {
      var value = String(form.get(name) || '');
      if (value) filter[name] = new Date(value).toISOString();
    });
    after = null;
    message('');
    loadDead().catch(failed);
  });
  $('select-all').addEventListener('change', function () {
    Array.prototype.forEach.call(document.querySelectorAll('#dead input[type=checkbox]'), function (box) { box.checked = $('select-all').checked; });
  });
  $('next-page').addEventListener('click', function () { if (next) { after = next; loadDead().catch(failed); } });
  $('replay-selected').addEventListener('click', function () {
    var ids = selectedIds();
    if (ids.length === 0) return message('Select dead letters first.', true);
    mutate('replay', { ids: ids }, 'Replay ' + ids.length + ' ' + table + ' dead letter' + (ids.length === 1 ? '' : 's') + ' (' + ids.join(', ') + ')? They are sent again, in order per key.');
  });
  $('discard-selected').addEventListener('click', function () {
    var ids = selectedIds();
    if (ids.length === 0) return message('Select dead letters first.', true);
    mutate('discard', { ids: ids }, 'Delete ' + ids.length + ' ' + table + ' dead letter' + (ids.length === 1 ? '' : 's') + ' (' + ids.join(', ') + ') for good?');
  });
  $('replay-matching').addEventListener('click', function () { mutate('replay', { filter: filter }, 'Replay ' + filterText() + '?'); });
  $('discard-matching').addEventListener('click', function () { mutate('discard', { filter: filter }, 'Delete ' + filterText() + ' for good?'); });
})();
`;
