// The live board's page: log in through Discord's Embedded App SDK, hold one
// WebSocket to the bot, draw every State it sends, send taps and buttons.
// The page decides nothing about the game: every text it shows comes from the
// server (State.status, State.labels, refusals and errors), every tap is sent
// and judged there. See package web/page's doc for the whole flow.
'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var app = $('app');
  var live = { state: null, phase: 'start', session: null, closed: 0 };
  // For people debugging the page in the browser's console (and for the
  // tests, which read what a person could): the last state, the phase, and
  // how many of its sockets have closed.
  window.tttLive = live;

  var clientId = document.querySelector('meta[name="ttt-client-id"]').content;
  var labels = {};
  var seq = 0;
  var ws = null;
  var failures = 0; // connections in a row that ended before a state came
  var offset = 0;   // server clock minus ours, from State.now

  function phase(p) { live.phase = p; app.dataset.phase = p; }

  // notice shows a refusal or an error until the player acts again or the
  // game changes ('info': a passing note, such as reconnecting, gone at
  // the next state; 'sticky': stays, the page cannot go on).
  var noticeVersion = -1;
  function notice(text, kind) {
    var n = $('notice');
    if (!text) { n.hidden = true; return; }
    n.textContent = text;
    n.className = kind || '';
    n.hidden = false;
    noticeVersion = live.state ? live.state.version : -1;
  }
  function clearNotice() { if ($('notice').className !== 'sticky') notice(''); }

  function label(key) { return labels[key] || ''; }

  // ---- logging in ----

  function sdkError(e) { return (e && (e.message || e.code)) ? String(e.message || e.code) : String(e); }

  var sdk = null;
  function start() {
    try {
      sdk = new tttDiscord.DiscordSDK(clientId, { disableConsoleLogOverride: true });
    } catch (e) {
      phase('failed');
      notice(sdkError(e), 'sticky');
      return;
    }
    sdk.ready().then(login).catch(function (e) { phase('failed'); notice(sdkError(e), 'sticky'); });
  }

  // login asks Discord for an OAuth2 code and the bot for a session. The
  // code is the only thing the page sends about who it is: the server
  // exchanges it and checks the activity instance itself.
  function login() {
    phase('login');
    return sdk.commands.authorize({
      client_id: clientId, response_type: 'code', state: '', prompt: 'none', scope: ['identify']
    }).catch(function (e) {
      // The user declined, or Discord refused: asking again would only
      // open Discord's dialog again and again. Reopening the Activity asks.
      var err = new Error(sdkError(e));
      err.fatal = true;
      throw err;
    }).then(function (r) {
      return fetch(new URL('api/session', location.href), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        // The channel Discord launched the page in is only compared by the
        // server with the instance's own: a mismatch is refused, never believed.
        body: JSON.stringify({ code: r.code, instance_id: sdk.instanceId, channel_id: sdk.channelId || '' }),
        credentials: 'omit',
        cache: 'no-store'
      });
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (!res.ok || !body.session) {
          var err = new Error(body.message || body.error || String(res.status));
          err.fatal = res.status >= 400 && res.status < 500;
          throw err;
        }
        return body;
      });
    }).then(function (body) {
      live.session = body.session;
      if (body.locale) document.documentElement.lang = body.locale;
      // Authenticate tells Discord's client the page is logged in; the
      // board does not need it, so a refusal does not stop the page.
      sdk.commands.authenticate({ access_token: body.access_token }).catch(function () {});
      connect();
    }).catch(function (e) {
      if (e && e.fatal) { phase('refused'); notice(sdkError(e), 'sticky'); return; }
      notice(sdkError(e));
      retry(login);
    });
  }

  // ---- the socket ----

  function retry(fn) {
    phase('waiting');
    var ms = Math.min(10000, 500 * Math.pow(2, failures));
    failures++;
    setTimeout(fn, ms * (0.75 + Math.random() * 0.5));
  }

  function connect() {
    phase('connecting');
    var u = new URL('ws', location.href);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    u.search = '';
    var sock = new WebSocket(u.href);
    ws = sock;
    var sessionRefused = false;
    var left = false; // the user is no longer in the activity
    var first = true; // the socket's first state clears what the last one said
    sock.onopen = function () {
      send({ type: 'hello', session: live.session });
    };
    sock.onmessage = function (ev) {
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === 'state' && m.state) {
        failures = 0;
        phase('live');
        if (first) clearNotice();
        first = false;
        draw(m.state);
      } else if (m.type === 'result') {
        if (!m.ok && m.message) notice(m.message);
      } else if (m.type === 'error') {
        if (m.code === 'left_instance') {
          // The user left the activity: signing in again would be
          // refused too. Reopening the Activity starts afresh.
          left = true;
          live.session = null;
          phase('refused');
          notice(m.message || m.code, 'sticky');
          return;
        }
        notice(m.message || m.code);
        if (m.code === 'session_expired' || m.code === 'session_invalid') {
          // At the session's expiry too, while the page is idle: the
          // reason stays shown while the page signs in again.
          sessionRefused = true;
          live.session = null;
          sock.close(); // and log in again (onclose)
        }
      }
    };
    sock.onclose = function () {
      if (ws !== sock) return;
      ws = null;
      live.closed++;
      if (left) return; // and no retry: the page stays refused
      // The reason a session was refused stays shown while the page logs
      // in again; otherwise the page says it is reconnecting.
      if (!sessionRefused && live.state && label('reconnecting')) notice(label('reconnecting'), 'info');
      // A reconnect re-reads the whole state: the server sends it after hello.
      retry(sessionRefused || !live.session ? login : connect);
    };
  }

  function send(m) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    m.seq = ++seq;
    ws.send(JSON.stringify(m));
    return true;
  }

  // Pings keep proxies from closing an idle socket.
  setInterval(function () { send({ type: 'ping' }); }, 25000);

  // ---- drawing ----

  // An avatar that cannot load (outside Discord, or without the app's
  // mapping of Discord's CDN) is hidden, not shown broken: the player's
  // initial stands in for it.
  document.querySelectorAll('.avatar').forEach(function (img) {
    img.addEventListener('error', function () {
      img.hidden = true;
      img.parentNode.querySelector('.initial').hidden = false;
    });
  });

  var board = $('board');
  var cells = [];
  var size = 0;

  function build(n) {
    board.textContent = '';
    board.style.setProperty('--n', n);
    cells = [];
    size = n;
    if (!n) return;
    board.appendChild(document.createElement('span'));
    for (var c = 1; c <= n; c++) board.appendChild(axis(c));
    for (var r = 1; r <= n; r++) {
      board.appendChild(axis(r));
      for (c = 1; c <= n; c++) {
        var b = document.createElement('button');
        b.type = 'button';
        b.className = 'cell';
        b.dataset.row = r;
        b.dataset.col = c;
        b.setAttribute('aria-label', r + ',' + c);
        board.appendChild(b);
        cells.push(b);
      }
    }
  }

  function axis(i) {
    var s = document.createElement('span');
    s.className = 'axis';
    s.textContent = i;
    return s;
  }

  board.addEventListener('click', function (ev) {
    var b = ev.target.closest('.cell');
    if (!b || !live.state) return;
    clearNotice();
    // Every tap goes to the server, which judges it: a spectator's tap,
    // a tap out of turn or on a taken cell comes back as a refusal.
    send({ type: 'move', row: +b.dataset.row, col: +b.dataset.col, version: live.state.version,
      game_id: live.state.game_id, ply: (live.state.moves || []).length });
  });

  $('actions').addEventListener('click', function (ev) {
    var b = ev.target.closest('button');
    if (!b) return;
    clearNotice();
    var act = b.dataset.act;
    if (act === 'accept_draw' || act === 'decline_draw') send({ type: 'answer_draw', accept: act === 'accept_draw' });
    else send({ type: act, version: live.state ? live.state.version : 0 });
  });

  function player(el, u, turn) {
    var img = el.querySelector('.avatar');
    var initial = el.querySelector('.initial');
    // Shown again only for a new picture: one that failed stays hidden
    // (its error handler hid it, and showed the initial) at every later
    // state.
    if (u && u.avatar) {
      if (img.getAttribute('src') !== u.avatar) { img.hidden = false; initial.hidden = true; img.src = u.avatar; }
    } else { img.hidden = true; img.removeAttribute('src'); initial.hidden = false; }
    initial.textContent = u && u.name ? Array.from(u.name)[0] : '';
    el.querySelector('.name').textContent = u ? u.name : '';
    el.classList.toggle('turn', !!turn);
    el.hidden = !u || !u.name;
  }

  function moveText(m) { return m.row + '·' + m.col; }

  function draw(s) {
    live.state = s;
    labels = s.labels || {};
    offset = (s.now || Date.now()) - Date.now();
    app.dataset.version = s.version;
    app.dataset.running = s.running ? '1' : '0';
    app.dataset.you = s.you || '';
    $('status').textContent = s.status || '';
    var players = s.players || [];
    player($('player-x'), players[0], s.running && s.turn === 'X');
    player($('player-o'), players[1], s.running && s.turn === 'O');

    var n = s.size || 0;
    if (n !== size) build(n);
    board.hidden = !n;
    board.classList.toggle('mine', s.running && !!s.you && s.turn === s.you);
    var win = {};
    (s.win_line || []).forEach(function (m) { win[(m.row - 1) * n + (m.col - 1)] = true; });
    var moves = s.moves || [];
    var last = moves.length ? moves[moves.length - 1] : null;
    var lastIdx = last ? (last.row - 1) * n + (last.col - 1) : -1;
    for (var i = 0; i < cells.length; i++) {
      var mark = (s.cells && s.cells[i]) || '';
      var b = cells[i];
      if (b.textContent !== mark) b.textContent = mark;
      if (mark) b.dataset.mark = mark; else delete b.dataset.mark;
      b.classList.toggle('win', !!win[i]);
      b.classList.toggle('last', i === lastIdx);
    }

    var lastEl = $('last');
    lastEl.textContent = '';
    if (last) {
      lastEl.textContent = (label('last_move') ? label('last_move') + ' ' : '') + (last.mark || '') + ' ' + moveText(last);
    }
    $('moves-title').textContent = moves.length ? label('moves') : '';
    var ol = $('moves');
    ol.textContent = '';
    moves.forEach(function (m) {
      var li = document.createElement('li');
      li.textContent = (m.mark || '') + ' ' + moveText(m);
      if (m.mark) li.dataset.mark = m.mark;
      ol.appendChild(li);
    });
    ol.scrollTop = ol.scrollHeight;

    var player_ = s.running && !!s.you;
    var offered = s.draw_offer || '';
    button('resign', player_);
    button('offer_draw', player_ && !offered);
    button('accept_draw', player_ && offered !== '' && offered !== s.you);
    button('decline_draw', player_ && offered !== '' && offered !== s.you);
    button('rematch', !s.running && !!s.game_id && !!s.you);
    tick();
    var n = $('notice');
    if (!n.hidden && (n.className === 'info' || (n.className === '' && s.version !== noticeVersion))) notice('');
  }

  function button(id, show) {
    var b = $(id);
    b.textContent = label(id) || id;
    b.hidden = !show;
  }

  function tick() {
    var s = live.state;
    var clock = $('clock');
    if (!s || !s.running || !s.deadline) { clock.textContent = ''; clock.className = ''; return; }
    var left = Math.max(0, s.deadline - (Date.now() + offset));
    var sec = Math.ceil(left / 1000);
    var h = Math.floor(sec / 3600), m = Math.floor(sec % 3600 / 60), r = sec % 60;
    clock.textContent = (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (r < 10 ? '0' : '') + r;
    clock.className = sec <= 30 ? 'low' : '';
  }
  setInterval(tick, 250);

  start();
})();
