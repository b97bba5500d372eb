// react-native-toast-message: every toast is printed as one JSON line.
const Toast = { show(opts) { globalThis.__emit({ toast: { type: opts.type, text1: opts.text1, text2: opts.text2 } }) }, hide() {} }
export default Toast
