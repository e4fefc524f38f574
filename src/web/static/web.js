// The pages' only script of our own (no inline script: the Content-Security-Policy forbids it).
// Forms and buttons with data-confirm ask first; without JavaScript they submit directly.
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});
