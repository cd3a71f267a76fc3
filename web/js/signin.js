// The sign-in page: signs in, sends each role to its page, and asks for a new
// password first when the account's password was reset by a pit boss.

import { $, signIn, session, call, HOME, busy } from "./api.js";
const params = new URLSearchParams(location.search);
if (params.get("reason")) $("reason").textContent = params.get("reason");

function goHome(s) {
  location.assign(HOME[s.role] || "/");
}

function askForNewPassword(chosen) {
  if (chosen) {
    $("change-why").textContent = "Changing your password signs you out everywhere else.";
    const back = $("change-cancel");
    back.hidden = false;
    back.href = HOME[existing.role] || "/";
  }
  $("signin").hidden = true;
  $("change").hidden = false;
  $("current").focus();
}

const existing = session();
if (existing && existing.must_change_password) askForNewPassword(false);
else if (existing && params.get("change") === "1") askForNewPassword(true);
else if (existing && !params.get("reason")) goHome(existing);
else $("username").focus();

$("signin").addEventListener("submit", (event) => {
  event.preventDefault();
  busy($("signin-button"), $("signin-problem"), async () => {
    const s = await signIn($("username").value.trim(), $("password").value);
    if (s.must_change_password) {
      $("current").value = $("password").value;
      askForNewPassword(false);
      $("new-password").focus();
    } else {
      goHome(s);
    }
  });
});

$("change").addEventListener("submit", (event) => {
  event.preventDefault();
  busy($("change-button"), $("change-problem"), async () => {
    if ($("new-password").value !== $("again").value) {
      throw { sentence: "The two new passwords differ." };
    }
    const s = session();
    await call("PUT", "/api/v1/me/password", {
      current_password: $("current").value,
      new_password: $("new-password").value,
    });
    // Changing a password ends every session, so sign in again with the new one.
    goHome(await signIn(s.username, $("new-password").value));
  });
});
