// tractc GLSL prelude: the element-wise functions whose plain GLSL forms
// differ from ONNX's (NaN handling of max/min, stable tanh and softplus,
// pow of negative bases, erf). Included in every kernel's shader.
float t_relu(float x) { return x < 0.0 ? 0.0 : x; }
float t_max(float a, float b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }
float t_min(float a, float b) { return isnan(a) || isnan(b) ? a + b : min(a, b); }
float t_clip(float x, float lo, float hi) { return isnan(x) ? x : min(max(x, lo), hi); }
float t_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
// (1 - e^-2|x|) / (1 + e^-2|x|): no inf / inf for large |x|.
float t_tanh(float x) {
  float e = exp(-2.0 * abs(x));
  float t = (1.0 - e) / (1.0 + e);
  return x < 0.0 ? -t : t;
}
// ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|): no overflow.
float t_softplus(float x) { return max(x, 0.0) + log(1.0 + exp(-abs(x))); }
// Integer exponents of negative bases (GLSL's pow is undefined there).
float t_pow(float a, float b) {
  if (a >= 0.0 || b != floor(b))
    return pow(a, b);
  float r = pow(-a, b);
  return mod(b, 2.0) == 1.0 ? -r : r;
}
float t_fmod(float a, float b) { return a - b * trunc(a / b); }
float t_prelu(float x, float slope) { return x < 0.0 ? x * slope : x; }
float t_leaky_relu(float x, float alpha) { return x < 0.0 ? x * alpha : x; }
float t_elu(float x, float alpha) { return x < 0.0 ? alpha * (exp(x) - 1.0) : x; }
float t_celu(float x, float alpha) { return max(x, 0.0) + min(0.0, alpha * (exp(x / alpha) - 1.0)); }
float t_shrink(float x, float bias, float lambd) {
  return x < -lambd ? x + bias : (x > lambd ? x - bias : 0.0);
}
// erf: Abramowitz and Stegun 7.1.26 refined (max abs error ~1.2e-7), odd.
float t_erf(float x) {
  float a = abs(x);
  float t = 1.0 / (1.0 + 0.5 * a);
  float y = 1.0 - t * exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
            t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 +
            t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x < 0.0 ? -y : y;
}
float t_gelu(float x) { return 0.5 * x * (1.0 + t_erf(x * 0.70710678118654752)); }
float t_gelu_tanh(float x) {
  return 0.5 * x * (1.0 + t_tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}
