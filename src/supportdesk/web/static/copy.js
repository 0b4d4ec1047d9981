// "Copy" buttons copy the text of the element that data-copy names. Nothing else runs here.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById("copy-status");
  let copied = false;
  try {
    await navigator.clipboard.writeText(field.textContent.trim());
    copied = true;
  } catch {
    window.getSelection().selectAllChildren(field);
    copied = document.execCommand("copy");
  }
  button.textContent = copied ? "Copied" : "Copy";
  if (status) status.textContent = copied ? "Copied to the clipboard." : "Select the key and copy it.";
  setTimeout(() => { button.textContent = "Copy"; }, 2500);
});
