// The applicant portal (docs/reference/portal.md, "The application form"): the form saves
// itself a moment after the applicant stops typing, when the page is hidden or left, and
// before the language changes. Without scripts the Save draft button does the same.
// A file over the upload limit is refused beside its field before it is sent.
(function () {
  document.addEventListener("submit", function (event) {
    var inputs = event.target.querySelectorAll("input[type=file][data-max-bytes]");
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i];
      var file = input.files && input.files[0];
      if (!file || file.size <= Number(input.getAttribute("data-max-bytes"))) continue;
      event.preventDefault();
      var id = input.id + "-error";
      var note = document.getElementById(id);
      if (!note) {
        note = document.createElement("p");
        note.className = "field-error";
        note.id = id;
        input.parentNode.appendChild(note);
      }
      note.textContent = input.getAttribute("data-too-large");
      input.parentNode.classList.add("has-error");
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id);
      input.focus();
      return;
    }
  });
})();

(function () {
  var form = document.querySelector("form[data-autosave]");
  if (!form || !window.fetch || !window.URLSearchParams || !window.FormData) return;
  var status = document.getElementById("autosave-status");
  var timer = null;
  var dirty = false;
  var running = null;

  function say(state) {
    if (status) status.textContent = status.getAttribute("data-" + state) || "";
  }

  function save(keepalive) {
    if (!dirty) return running || Promise.resolve(true);
    dirty = false;
    clearTimeout(timer);
    var body = new URLSearchParams(new FormData(form));
    body.set("intent", "autosave");
    say("saving");
    running = fetch(form.getAttribute("action"), {
      method: "POST",
      body: body,
      credentials: "same-origin",
      keepalive: !!keepalive,
    })
      .then(function (response) {
        if (!response.ok) throw new Error("not saved");
        if (!dirty) say("saved");
        return true;
      })
      .catch(function () {
        dirty = true;
        say("failed");
        return false;
      });
    return running;
  }

  function soon() {
    dirty = true;
    clearTimeout(timer);
    timer = setTimeout(save, 1200);
  }

  form.addEventListener("input", soon);
  form.addEventListener("change", soon);
  form.addEventListener("submit", function () {
    clearTimeout(timer);
    dirty = false;
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") save(true);
  });
  window.addEventListener("pagehide", function () {
    save(true);
  });

  var picker = document.querySelector("form.languages");
  if (picker) {
    picker.addEventListener("submit", function (event) {
      if (!dirty) return;
      event.preventDefault();
      var chosen = event.submitter;
      save(false).then(function () {
        if (chosen) {
          var field = document.createElement("input");
          field.type = "hidden";
          field.name = chosen.name;
          field.value = chosen.value;
          picker.appendChild(field);
        }
        picker.submit();
      });
    });
  }
})();

// Each open item of the requests page keeps what was typed in it (this tab's session
// storage) until that item's form is sent: answering one item never loses the others.
(function () {
  var store = window.sessionStorage;
  if (!store) return;
  var fields = document.querySelectorAll("[data-draft]");
  for (var i = 0; i < fields.length; i++) {
    (function (field) {
      var key = "gatehouse-draft:" + field.getAttribute("data-draft");
      var kept = store.getItem(key);
      if (kept && !field.value) field.value = kept;
      field.addEventListener("input", function () {
        store.setItem(key, field.value);
      });
      // Sent by its own item's button (the server keeps the others).
      field.form.addEventListener("submit", function (event) {
        var by = event.submitter && event.submitter.closest && event.submitter.closest("[data-item]");
        if (!by || by.getAttribute("data-item") === field.getAttribute("data-draft")) store.removeItem(key);
      });
    })(fields[i]);
  }
})();

// Moments in the reader's own time zone; the UTC time the server wrote stays on hover.
(function () {
  if (!window.Intl || !Intl.DateTimeFormat) return;
  var lang = document.documentElement.lang || undefined;
  var format = new Intl.DateTimeFormat(lang, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });
  var times = document.querySelectorAll("time[data-local]");
  for (var i = 0; i < times.length; i++) {
    var moment = new Date(times[i].getAttribute("datetime"));
    if (isNaN(moment)) continue;
    times[i].title = times[i].textContent;
    times[i].textContent = format.format(moment);
  }
})();

// Answer forms send once per tap: a second tap while the first is on its way sends nothing.
(function () {
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute("data-once") || form.hasAttribute("data-upload")) return;
    if (event.defaultPrevented) return;
    if (form.getAttribute("data-sent")) event.preventDefault();
    else form.setAttribute("data-sent", "1");
  });
  window.addEventListener("pageshow", function () {
    var sent = document.querySelectorAll("form[data-sent]");
    for (var i = 0; i < sent.length; i++) sent[i].removeAttribute("data-sent");
  });
})();
