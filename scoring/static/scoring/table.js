/* The table page's card grid: tap a field, then tap its cards.
 *
 * Every cards field stays a plain text field (typed notation works, and the page works without
 * this script); the grid only writes tokens into the field last focused. A card whose copies
 * are all used in this hand is greyed out and disabled (with several decks, Rook, each card shows
 * how many of its copies are taken: "2/3"); each field shows its running count; Bluke shows a
 * live check that the tricks add up to the cards dealt. The server checks every rule again.
 * While the grid is open the cards fields ask for no on-screen keyboard (inputmode="none");
 * "Type instead" closes the grid and brings the keyboard back.
 *
 * Every phone at the table keeps its sheet live: every few seconds (while the page is shown)
 * it asks for the live region (the "Next" facts and the sheet) with the version it shows; the
 * server answers 304 while nothing changed. Only the live region is replaced: the entry form,
 * what is typed in it and the focus stay.
 * Strings come from Django's JavaScript catalogue (gettext, ngettext, interpolate).
 */
(function () {
  "use strict";

  // Named as xgettext (makemessages -d djangojs) looks for them.
  var gettext = window.gettext || function (s) { return s; };
  var ngettext = window.ngettext || function (s, p, n) { return n === 1 ? s : p; };
  var fmt = window.interpolate || function (s, a) { return s.replace("%s", a[0]); };

  // Counts people read (cards, groups, tricks, copies taken) in the page language's digits,
  // as the server writes them (ops.l10n): <html data-numbering> names the language's CLDR
  // numbering system ("beng": ০–৯ for Bengali and Assamese; "latn" for the others), asked of
  // Intl explicitly because Chromium's ICU lacks "as". Never card notation.
  var NUMBER = (function () {
    var html = document.documentElement;
    try {
      return new Intl.NumberFormat(html.lang || undefined,
        html.dataset.numbering ? { numberingSystem: html.dataset.numbering } : {});
    } catch (e) { return null; }
  }());
  function num(n) { return NUMBER ? NUMBER.format(n) : String(n); }

  // Card notation is the engine's: the server sends every accepted spelling of the deck's
  // cards (upper-cased, no emoji selector) with its canonical form, and typed tokens are
  // looked up in that table; a token that is no card stays as typed, for the server to refuse.
  var SPELLINGS = null;
  // A phone's keyboard may type its language's digits (Bengali ৫, Tamil ௫): read as ASCII, as
  // the server reads them (scoring.entry.CardsField). The zero of each script's digits.
  var ZEROS = [0x0660, 0x06F0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66,
    0x0CE6, 0x0D66, 0x0E50, 0xFF10];
  function asciiDigits(text) {
    return text.replace(/\p{Nd}/gu,
      function (d) {
        var c = d.charCodeAt(0);
        for (var i = 0; i < ZEROS.length; i++) {
          if (c >= ZEROS[i] && c < ZEROS[i] + 10) { return String(c - ZEROS[i]); }
        }
        return d;
      });
  }
  function canonical(token) {
    if (SPELLINGS === null) { SPELLINGS = entryData().spellings || {}; }
    var text = asciiDigits(token.trim()).replace(/\uFE0F/g, "").toUpperCase();
    return Object.prototype.hasOwnProperty.call(SPELLINGS, text) ? SPELLINGS[text] : text;
  }

  // As the server splits them (the separators come from the server too).
  var SEPARATORS = null;
  function separator(kind) {
    if (SEPARATORS === null) {
      var given = entryData().separators || {};
      SEPARATORS = {
        cards: new RegExp(given.cards || "\\s+"),
        groups: new RegExp(given.groups || "\\n")
      };
    }
    return SEPARATORS[kind];
  }

  function tokens(text) {
    return (text || "").split(separator("cards")).filter(Boolean);
  }

  function lines(text) {
    return (text || "").split(separator("groups"));
  }

  function groupTokens(text) {
    return lines(text).reduce(function (all, line) { return all.concat(tokens(line)); }, []);
  }

  function entryData() {
    var node = document.getElementById("entry-data");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (e) { return {}; }
  }

  function init(form) {
    if (!form || form.dataset.ready) { return; }
    form.dataset.ready = "1";
    var grid = form.querySelector("#cardgrid");
    var copies = parseInt(form.dataset.copies || "1", 10);
    var targets = Array.prototype.slice.call(form.querySelectorAll(".target"));
    var active = null;
    var typing = false;  // the grid closed by "Type instead": the keyboard is back
    var opener = form.querySelector("[data-grid-open]");

    // No on-screen keyboard over the grid: a cards field opens the grid when focused.
    function keyboard(on) {
      targets.forEach(function (target) {
        var field = fieldOf(target);
        if (on) { field.removeAttribute("inputmode"); } else { field.setAttribute("inputmode", "none"); }
      });
    }

    function fieldOf(target) { return target.querySelector("input[type=text], input:not([type]), textarea"); }

    function cardsIn(target) {
      var value = fieldOf(target).value;
      return target.dataset.cards === "groups" ? groupTokens(value) : tokens(value);
    }

    function used() {
      var counts = {};
      targets.forEach(function (target) {
        cardsIn(target).forEach(function (tok) {
          var c = canonical(tok);
          counts[c] = (counts[c] || 0) + 1;
        });
      });
      return counts;
    }

    function activate(target) {
      targets.forEach(function (t2) { t2.classList.toggle("active", t2 === target); });
      active = target;
      if (grid && target && typing) {
        target.after(opener);
        opener.hidden = false;
      } else if (grid && target) {
        target.after(grid);
        grid.hidden = false;
      }
      refresh();
    }

    function closeGrid() {
      typing = true;
      keyboard(true);
      grid.hidden = true;
      var target = active || targets[0];
      active = null;
      activate(target);
      var field = fieldOf(target);
      field.blur();  // a field focused again shows the keyboard its inputmode now asks for
      field.focus();
    }

    function openGrid() {
      typing = false;
      keyboard(false);
      opener.hidden = true;
      var target = active || targets[0];
      active = null;
      activate(target);
      fieldOf(target).focus({ preventScroll: true });
    }

    function refresh() {
      var counts = used();
      targets.forEach(function (target) {
        var field = fieldOf(target);
        var n = cardsIn(target).length;
        var out = target.querySelector("[data-count]");
        if (!out) { return; }
        if (target.dataset.cards === "groups") {
          var g = lines(field.value).filter(function (l) { return tokens(l).length; }).length;
          out.textContent = n ? fmt(ngettext("%s group", "%s groups", g), [num(g)]) + ", " +
            fmt(ngettext("%s card", "%s cards", n), [num(n)]) : "";
        } else {
          out.textContent = n ? fmt(ngettext("%s card", "%s cards", n), [num(n)]) : "";
        }
      });
      tricksCheck();
      if (!grid) { return; }
      var mine = {};
      if (active) {
        var f = fieldOf(active);
        var pool = active.dataset.cards === "groups" ? tokens(lines(f.value).slice(-1)[0]) : tokens(f.value);
        pool.forEach(function (tok) { mine[canonical(tok)] = true; });
      }
      grid.querySelectorAll(".cardtap").forEach(function (button) {
        var card = button.dataset.card;
        var taken = counts[card] || 0;
        var exhausted = taken >= copies;
        button.classList.toggle("used", exhausted && !mine[card]);
        button.setAttribute("aria-pressed", mine[card] ? "true" : "false");
        button.disabled = exhausted && !mine[card];
        var shown = button.querySelector("[data-taken]");
        if (shown && copies > 1) { shown.textContent = taken ? " " + num(taken) + "/" + num(copies) : ""; }
      });
    }

    function tap(card) {
      if (!active) { activate(targets[0]); }
      var field = fieldOf(active);
      var groups = active.dataset.cards === "groups";
      var rows = groups ? lines(field.value) : [field.value];
      var last = tokens(rows[rows.length - 1]);
      var at = -1;
      last.forEach(function (tok, i) { if (canonical(tok) === card) { at = i; } });
      var left = copies - (used()[card] || 0);
      // One deck: a tap toggles the card. Several decks (Rook): a tap adds another copy
      // while one is left, and takes one out once every copy is used.
      if (at >= 0 && (copies === 1 || left <= 0)) {
        last.splice(at, 1);
      } else if (left > 0) {
        last.push(card);
      } else {
        return;
      }
      rows[rows.length - 1] = last.join(" ");
      field.value = groups ? rows.join("\n") : rows[0];
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }

    function tricksCheck() {
      var out = form.querySelector("#tricks-check");
      var hand = form.querySelector("[name=hand]");
      if (!out || !hand) { return; }
      var dealt = (entryData().cards_dealt || {})[hand.value];
      var fields = form.querySelectorAll("input[name^=tricks_]");
      var sum = 0, filled = 0;
      fields.forEach(function (f) { if (f.value !== "") { filled += 1; sum += parseInt(f.value, 10) || 0; } });
      if (!dealt || !filled) { out.textContent = ""; out.className = "muted"; return; }
      out.textContent = fmt(gettext("Tricks entered: %s of %s"), [num(sum), num(dealt)]);
      var wrong = sum > dealt || (filled === fields.length && sum !== dealt);
      out.className = wrong ? "error" : (sum === dealt ? "ok" : "muted");
    }

    targets.forEach(function (target) {
      var field = fieldOf(target);
      field.addEventListener("focus", function () { if (active !== target) { activate(target); } });
      var next = target.querySelector("[data-new-group]");
      if (next) {
        next.hidden = false;
        next.addEventListener("click", function () {
          if (active !== target) { activate(target); }
          if (field.value.trim() && !/\n\s*$/.test(field.value)) { field.value += "\n"; }
          refresh();
        });
      }
    });
    // Bluke: the bids table follows the bidding order, from the dealer's left.
    var dealer = form.querySelector("[name=dealer]");
    var bids = form.querySelector("table.bids tbody");
    if (dealer && bids) {
      dealer.addEventListener("change", function () {
        var rows = Array.prototype.slice.call(bids.querySelectorAll("tr[data-seat]"));
        var n = rows.length, d = parseInt(dealer.value, 10);
        rows.sort(function (a, b) {
          return ((+a.dataset.seat - d - 1 + n) % n) - ((+b.dataset.seat - d - 1 + n) % n);
        });
        rows.forEach(function (row) { bids.appendChild(row); });
      });
    }
    form.addEventListener("input", refresh);
    form.addEventListener("change", refresh);
    // Enter in a one-line field moves on instead of sending a half-entered hand.
    form.addEventListener("keydown", function (event) {
      var field = event.target;
      if (event.key !== "Enter" || field.tagName !== "INPUT" || field.type === "submit") { return; }
      event.preventDefault();
      var fields = Array.prototype.slice.call(
        form.querySelectorAll("input:not([type=hidden]), select, textarea, button[type=submit]"));
      var next = fields[fields.indexOf(field) + 1];
      if (next) { next.focus(); }
    });
    // After a rejected entry: the first field at fault has the focus.
    var invalid = form.querySelector("[aria-invalid=true]");
    if (invalid && form.querySelector(".error")) { invalid.focus({ preventScroll: true }); }
    if (grid && targets.length) {
      keyboard(false);
      grid.querySelector("[data-grid-close]").addEventListener("click", closeGrid);
      opener.addEventListener("click", openGrid);
    }
    if (grid) {
      grid.addEventListener("click", function (event) {
        var button = event.target.closest(".cardtap");
        if (button) { event.preventDefault(); tap(button.dataset.card); }
      });
    }
    refresh();
  }

  function start() { init(document.getElementById("entry")); }
  document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("htmx:load", start);
  // No answer (network down, server error): say so, and keep the entry for another try.
  function noAnswer(event) {
    var form = document.getElementById("entry");
    if (!form || !form.contains(event.target) && event.target !== form) { return; }
    var box = form.querySelector("#send-error");
    if (!box) {
      box = document.createElement("p");
      box.id = "send-error";
      box.className = "error";
      box.setAttribute("role", "alert");
      form.querySelector(".actions").before(box);
    }
    box.textContent = gettext("No answer from the server. Check the sheet (reload the page), then send again: a hand already recorded is never recorded twice.");
  }
  document.addEventListener("htmx:sendError", noAnswer);
  document.addEventListener("htmx:responseError", noAnswer);

  // After a submission: show the first error where it is, or the sheet with the new hand.
  document.addEventListener("htmx:afterSettle", function (event) {
    var main = document.getElementById("table-main");
    if (!main || !main.contains(event.target) && event.target !== main) { return; }
    var error = main.querySelector(".error");
    if (error) {
      error.scrollIntoView({ block: "center" });
    } else {
      window.scrollTo(0, 0);
    }
  });

  // --- the live sheet -------------------------------------------------------------------------

  var polling = false;

  function swapLive(html) {
    var main = document.getElementById("table-main");
    var before = document.getElementById("live-next");
    var incoming = document.createElement("template");
    incoming.innerHTML = html;
    var after = incoming.content.getElementById("live-next");
    var mode = before ? before.dataset.mode : null;
    incoming.content.querySelectorAll("[data-live]").forEach(function (node) {
      var here = document.getElementById(node.id);
      if (!here) { return; }
      // Focus inside the region (a hand's link) goes to the same place in the new one.
      var focused = here.contains(document.activeElement) ? document.activeElement : null;
      var holder = focused && focused.closest("[id]");
      here.replaceWith(node);
      if (holder) {
        var again = document.getElementById(holder.id);
        var target = again && (again.matches("a, button, input") ? again : again.querySelector("a, button"));
        if (target) { target.focus({ preventScroll: true }); }
      }
    });
    // A table that could take no hand and now can (its round published, a hand voided):
    // the whole region, form included, since there is no typing to keep.
    if (after && mode !== after.dataset.mode && after.dataset.mode === "open" &&
        !document.getElementById("entry") && window.htmx && main) {
      window.htmx.ajax("GET", main.dataset.mainUrl, { target: "#table-main", swap: "outerHTML" });
    }
  }

  function poll() {
    var main = document.getElementById("table-main");
    var live = document.getElementById("live-next");
    if (!main || !live || !main.dataset.liveUrl || polling) { return; }
    if (document.visibilityState === "hidden") { return; }
    polling = true;
    fetch(main.dataset.liveUrl, {
      headers: { "If-None-Match": '"' + live.dataset.version + '"' },
      cache: "no-store",
      credentials: "same-origin"
    }).then(function (response) {
      // 304: nothing changed. Anything else but 200: ask again next time.
      return response.status === 200 ? response.text() : null;
    }).then(function (html) {
      if (html) { swapLive(html); }
    }).catch(function () { /* offline: ask again next time */ }).then(function () {
      polling = false;
    });
  }

  function startPolling() {
    var main = document.getElementById("table-main");
    if (!main || !main.dataset.liveUrl || startPolling.timer) { return; }
    var seconds = parseInt(main.dataset.poll || "3", 10);
    startPolling.timer = window.setInterval(poll, seconds * 1000);
    // Back on screen: ask at once (the timer runs, but asks nothing while the page is hidden).
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") { poll(); }
    });
  }
  document.addEventListener("DOMContentLoaded", startPolling);
})();
