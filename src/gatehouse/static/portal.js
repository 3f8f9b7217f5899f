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
