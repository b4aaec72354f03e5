// Acme Projects demo: progressive enhancement only; every page works without it.
(function () {
  "use strict";

  // Forms marked data-submit-once submit only once: a second click is ignored and
  // the submit buttons are disabled while the request is in flight.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-submit-once")) {
      return;
    }
    if (form.dataset.submitted === "1") {
      ev.preventDefault();
      return;
    }
    form.dataset.submitted = "1";
    setTimeout(function () {
      form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
    }, 0);
  });

  // Forms marked data-fetch-submit post in the background and then follow
  // the redirect; any other answer (a validation error) is shown by a
  // regular submission. This listener runs after the once-only guard above.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (ev.defaultPrevented || !(form instanceof HTMLFormElement) || !form.hasAttribute("data-fetch-submit")) {
      return;
    }
    ev.preventDefault();
    fetch(form.action, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(new FormData(form)).toString(),
      credentials: "same-origin"
    }).then(function (res) {
      if (res.redirected) {
        window.location.assign(res.url);
      } else {
        form.submit();
      }
    }).catch(function () {
      form.submit();
    });
  });

  // A page restored from the back/forward cache may be submitted again.
  window.addEventListener("pageshow", function (ev) {
    if (!ev.persisted) {
      return;
    }
    document.querySelectorAll("form[data-submit-once]").forEach(function (f) {
      delete f.dataset.submitted;
      f.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = false; });
    });
  });

  document.addEventListener("click", function (ev) {
    var el = ev.target instanceof Element ? ev.target.closest("button") : null;
    if (!el) {
      return;
    }
    var open = el.getAttribute("data-open-dialog");
    if (open) {
      var dlg = document.getElementById(open);
      if (dlg && typeof dlg.showModal === "function") {
        dlg.showModal();
      }
      return;
    }
    if (el.hasAttribute("data-close-dialog")) {
      var d = el.closest("dialog");
      if (d) {
        d.close();
      }
      return;
    }
    switch (el.getAttribute("data-action")) {
      case "reload":
        window.location.reload();
        break;
      case "save-draft":
        saveDraft(el);
        break;
    }
  });

  function saveDraft(button) {
    var form = button.closest("form");
    var status = form ? form.querySelector('[data-testid="draft-status"]') : null;
    if (!form) {
      return;
    }
    button.disabled = true;
    if (status) {
      status.textContent = "Saving draft…";
    }
    fetch("/checkout/draft", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(new FormData(form)).toString(),
      credentials: "same-origin"
    }).then(function (res) {
      return res.ok ? res.json() : { saved: false, message: "Could not save the draft." };
    }).then(function (body) {
      if (status) {
        status.textContent = body.message;
      }
    }).catch(function () {
      if (status) {
        status.textContent = "Could not save the draft.";
      }
    }).finally(function () {
      button.disabled = false;
    });
  }
})();
