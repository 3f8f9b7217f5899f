// Loaded by the two pages that hold passkey buttons (the second step of sign-in and the
// account page), so no other page carries it.
// Passkeys (WebAuthn): the second step of sign-in, and adding one on the account page.
// Buttons carry data-passkey ("sign-in" or "enrol"), the CSRF token and where to report.
(function () {
  function post(url, csrf, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {}),
    }).then(function (response) {
      return response.json().then(function (data) {
        return { ok: response.ok, data: data };
      });
    });
  }

  // Why a ceremony failed, in words (docs/staff-identity.md "Passkeys"): the browser's
  // DOMException names, or the server's own refusal.
  function words(error, origin) {
    var name = error && error.name;
    if (error && error.fromServer) return error.message;
    if (name === "NotAllowedError" || name === "AbortError")
      return "The passkey was cancelled, or the time to use it ran out. Try again.";
    if (name === "SecurityError")
      return "Passkeys are not allowed at this address (" + location.origin + ")." +
        (origin ? " Open " + origin + "/dashboard and try again." : "");
    if (name === "InvalidStateError")
      return "This device already holds a passkey for your account. Use another device, or remove the old passkey first.";
    if (name === "NotSupportedError" || name === "TypeError")
      return "This browser or device cannot use passkeys here. Try another browser, or use the code of your authenticator app.";
    return "The passkey did not work. Try again.";
  }
  window.gatehousePasskeyWords = words;

  function failed(res) {
    var error = new Error(res.data && res.data.message ? res.data.message : "The passkey did not work.");
    error.fromServer = true;
    throw error;
  }

  function signIn(csrf) {
    return post("/dashboard/sign-in/passkey/options", csrf)
      .then(function (res) {
        if (!res.ok) failed(res);
        var options = PublicKeyCredential.parseRequestOptionsFromJSON(res.data.options);
        return navigator.credentials.get({ publicKey: options });
      })
      .then(function (credential) {
        return post("/dashboard/sign-in/passkey", csrf, { credential: credential.toJSON() });
      })
      .then(function (res) {
        if (res.ok) return window.location.assign(res.data.redirect);
        if (res.data && res.data.restart) return window.location.assign("/dashboard/sign-in");
        failed(res);
      });
  }

  function enrol(csrf, name) {
    var ticket;
    return post("/dashboard/account/passkeys/options", csrf)
      .then(function (res) {
        if (!res.ok) failed(res);
        ticket = res.data.ticket;
        var options = PublicKeyCredential.parseCreationOptionsFromJSON(res.data.options);
        return navigator.credentials.create({ publicKey: options });
      })
      .then(function (credential) {
        return post("/dashboard/account/passkeys", csrf, {
          name: name,
          ticket: ticket,
          credential: credential.toJSON(),
        });
      })
      .then(function (res) {
        if (!res.ok) failed(res);
        window.location.assign("/dashboard/account?done=passkey");
      });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-passkey]") : null;
    if (!button) return;
    event.preventDefault();
    var status = document.getElementById(button.getAttribute("data-status"));
    function say(text) {
      if (status) {
        status.textContent = text;
        status.hidden = false;
      }
    }
    var origin = button.getAttribute("data-origin");
    if (origin && origin !== location.origin) {
      say("Passkeys work only at " + origin + ", and this page is open at " + location.origin +
        " (a passkey belongs to one address, never to an IP address). Open " + origin + "/dashboard and try again.");
      return;
    }
    if (!window.PublicKeyCredential || !PublicKeyCredential.parseRequestOptionsFromJSON) {
      say(words({ name: "NotSupportedError" }, origin));
      return;
    }
    var csrf = button.getAttribute("data-csrf");
    var work;
    if (button.getAttribute("data-passkey") === "enrol") {
      var field = document.getElementById(button.getAttribute("data-name-field"));
      var name = field ? field.value.trim() : "";
      if (!name) {
        say("Give the passkey a name.");
        return;
      }
      work = enrol(csrf, name);
    } else {
      work = signIn(csrf);
    }
    button.disabled = true;
    work.catch(function (error) {
      say(words(error, origin));
      button.disabled = false;
    });
  });
})();
