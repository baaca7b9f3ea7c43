/* The language switcher keeps what is being typed (issue 15).
 *
 * Choosing a language reloads the page; a player who has typed part of a hand must find it
 * again. Before the switcher's form is sent, the fields of every form marked
 * data-keep-on-language (the table page's entry form, the new-game and new-tournament forms, the
 * dashboard's register and substitute forms) are saved in
 * sessionStorage under the page's path; when that page loads again they are put back, once,
 * and the saved copy is cleared. Hidden fields (the idempotency key, the CSRF token, the
 * hand's revision) are never saved: the page brings fresh ones. Without this script the
 * switcher still works; only the typing is lost.
 */
(function () {
  "use strict";

  var PREFIX = "keep-on-language:";

  function storageKey() { return PREFIX + window.location.pathname; }

  function keptForms() {
    return Array.prototype.slice.call(document.querySelectorAll("form[data-keep-on-language]"));
  }

  function fieldsOf(form) {
    return Array.prototype.slice.call(form.elements).filter(function (field) {
      return field.name && field.type !== "hidden" && field.type !== "submit" &&
        field.type !== "button" && field.type !== "file" && field.type !== "password";
    });
  }

  function formKey(form, index) { return form.id || String(index); }

  function save() {
    if (!keptForms().length) { return; }
    var saved = {};
    keptForms().forEach(function (form, index) {
      var values = [];
      fieldsOf(form).forEach(function (field) {
        if (field.type === "checkbox" || field.type === "radio") {
          values.push([field.name, field.value, field.checked]);
        } else if (field.multiple) {
          Array.prototype.forEach.call(field.options, function (option) {
            values.push([field.name, option.value, option.selected]);
          });
        } else {
          values.push([field.name, field.value, null]);
        }
      });
      saved[formKey(form, index)] = values;
    });
    try { window.sessionStorage.setItem(storageKey(), JSON.stringify(saved)); } catch (e) { /* full, or off */ }
  }

  function restore() {
    var text = null;
    try {
      text = window.sessionStorage.getItem(storageKey());
      window.sessionStorage.removeItem(storageKey());
    } catch (e) { return; }
    if (!text) { return; }
    var saved;
    try { saved = JSON.parse(text); } catch (e) { return; }
    keptForms().forEach(function (form, index) {
      var values = saved[formKey(form, index)];
      if (!values) { return; }
      var fields = fieldsOf(form);
      values.forEach(function (entry) {
        var name = entry[0], value = entry[1], on = entry[2];
        fields.forEach(function (field) {
          if (field.name !== name) { return; }
          if (field.type === "checkbox" || field.type === "radio") {
            if (field.value === value) { field.checked = on; }
          } else if (field.multiple) {
            Array.prototype.forEach.call(field.options, function (option) {
              if (option.value === value) { option.selected = on; }
            });
          } else {
            field.value = value;
          }
        });
      });
      // Scripts that count or check what is typed (the card grid) see the restored values.
      fields.forEach(function (field) {
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.dispatchEvent(new Event("change", { bubbles: true }));
      });
    });
  }

  var switcher = document.getElementById("language-form");
  if (switcher) { switcher.addEventListener("submit", save); }
  // This script comes at the end of the body: the forms are there; the page's own scripts
  // (deferred, or started on DOMContentLoaded) find the fields already filled.
  restore();
})();
