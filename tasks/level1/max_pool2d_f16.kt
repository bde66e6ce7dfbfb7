# No dilation and floor mode: the baseline is cudnnPoolingForward.
task max_pool2d_f16
level 1
category Pooling
about "Max pooling 2D in f16, kernel 3, stride 2, padding 1 (torch.nn.MaxPool2d(3, 2, 1), the ResNet stem pool)"
input  x: f16[N, C, H, W] ~ normal
output y: f16[N, C, (H-1)/2+1, (W-1)/2+1]
y = max_pool2d(x, 3, stride=2, padding=1)
check N=1 C=1 H=1 W=1; N=2 C=3 H=7 W=10; N=3 C=5 H=17 W=6
bench N=640 C=64 H=224 W=224 weight=1
bench cpu N=4 C=16 H=112 W=112 weight=1
