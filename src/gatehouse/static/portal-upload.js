// The applicant portal's uploads (docs/reference/portal.md, "Uploads"), on the pages that have
// them: a preview of the chosen file, a photo from the camera on phones, large photos scaled
// down before they are sent, progress while the file goes up, and one send per tap.
// Without scripts the same forms post as they are.
(function () {
  var forms = document.querySelectorAll("form[data-upload]");
  var limit = 2400; // longest side, in pixels, of a photo after scaling down

  function preview(input) {
    var box = input.parentNode.querySelector(".preview");
    if (!box) {
      box = document.createElement("div");
      box.className = "preview";
      input.parentNode.appendChild(box);
    }
    box.textContent = "";
    var file = input.files && input.files[0];
    if (!file) return;
    if (/^image\//.test(file.type) && window.URL) {
      var img = document.createElement("img");
      img.src = URL.createObjectURL(file);
      img.alt = file.name;
      box.appendChild(img);
    }
    var name = document.createElement("p");
    name.className = "small";
    name.textContent = file.name + " · " + Math.max(1, Math.round(file.size / 1024)) + " KB";
    box.appendChild(name);
  }

  function scaled(file) {
    if (!/^image\/(jpeg|png|webp)$/.test(file.type) || !window.createImageBitmap) {
      return Promise.resolve(file);
    }
    return createImageBitmap(file).then(function (bitmap) {
      var ratio = limit / Math.max(bitmap.width, bitmap.height);
      if (ratio >= 1) return file;
      var canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * ratio);
      canvas.height = Math.round(bitmap.height * ratio);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      return new Promise(function (done) {
        canvas.toBlob(
          function (blob) {
            done(blob ? new File([blob], file.name.replace(/\.\w+$/, "") + ".jpg", { type: "image/jpeg" }) : file);
          },
          "image/jpeg",
          0.85
        );
      });
    }, function () {
      return file;
    });
  }

  // A file, its camera and its progress belong to one [data-item] (requests) or the form.
  function scopeOf(node, form) {
    return (node && node.closest && node.closest("[data-item]")) || form;
  }

  function camera(form, input) {
    var touch = navigator.maxTouchPoints > 0 || (window.matchMedia && matchMedia("(pointer: coarse)").matches);
    if (!touch || !window.DataTransfer) return;
    var button = form.querySelector("button.camera");
    if (!button) return;
    var shot = document.createElement("input");
    shot.type = "file";
    shot.accept = "image/*";
    shot.setAttribute("capture", "environment");
    shot.hidden = true;
    shot.addEventListener("change", function () {
      if (!shot.files[0]) return;
      var moved = new DataTransfer();
      moved.items.add(shot.files[0]);
      input.files = moved.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    button.parentNode.appendChild(shot);
    button.hidden = false;
    button.addEventListener("click", function () {
      shot.click();
    });
  }

  function send(form, input, bar, submitter) {
    var file = input.files && input.files[0];
    return scaled(file).then(function (ready) {
      var body = submitter ? new FormData(form, submitter) : new FormData(form);
      var others = form.querySelectorAll("input[type=file]");
      for (var k = 0; k < others.length; k++) if (others[k] !== input) body.delete(others[k].name);
      body.set(input.name, ready, ready.name);
      var xhr = new XMLHttpRequest();
      xhr.open("POST", (submitter && submitter.formAction) || form.getAttribute("action"));
      xhr.upload.onprogress = function (event) {
        if (event.lengthComputable) bar.value = event.loaded / event.total;
      };
      xhr.onload = function () {
        if (xhr.status < 300) {
          location.assign(xhr.responseURL);
          return;
        }
        // Refused: the page the server answered, with its error beside the field.
        var answer = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var main = answer.querySelector("main");
        if (main) document.querySelector("main").replaceWith(main);
        var focus = document.querySelector("main [autofocus]");
        if (focus) focus.focus();
      };
      xhr.onerror = function () {
        form.removeAttribute("data-sent");
        bar.hidden = true;
        if (submitter) form.setAttribute("action", submitter.formAction);
        form.submit();
      };
      xhr.send(body);
    });
  }

  for (var i = 0; i < forms.length; i++) {
    (function (form) {
      var inputs = form.querySelectorAll("input[type=file]");
      if (!inputs.length) return;
      for (var j = 0; j < inputs.length; j++) {
        (function (input) {
          camera(scopeOf(input, form), input);
          input.addEventListener("change", function () {
            preview(input);
          });
        })(inputs[j]);
      }
      form.addEventListener("submit", function (event) {
        if (form.getAttribute("data-sent")) {
          event.preventDefault(); // a second tap sends nothing more
          return;
        }
        var submitter = event.submitter || null;
        var scope = scopeOf(submitter, form);
        var input = scope.querySelector("input[type=file]");
        if (!input) return; // a text answer: the form posts as it is
        var file = input.files && input.files[0];
        if (!file || !window.FormData || !window.XMLHttpRequest) return;
        if (file.size > Number(input.getAttribute("data-max-bytes") || Infinity)) return;
        event.preventDefault();
        form.setAttribute("data-sent", "1");
        var bar = scope.querySelector("progress.upload");
        bar.hidden = false;
        bar.value = 0;
        send(form, input, bar, submitter);
      });
    })(forms[i]);
  }
  window.addEventListener("pageshow", function () {
    for (var i = 0; i < forms.length; i++) forms[i].removeAttribute("data-sent");
  });
})();
